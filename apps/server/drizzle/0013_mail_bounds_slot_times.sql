ALTER TABLE `file_requests` ADD `slot_reserved_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `file_requests` ADD `notify_emails_queued` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `reports` ADD `mailed_at` integer;--> statement-breakpoint
ALTER TABLE `reports` ADD `mail_lease_until` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `reports` SET `mailed_at` = `created_at`;