CREATE TABLE `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`upload_id` text NOT NULL,
	`request_id` text NOT NULL,
	`channel` text NOT NULL,
	`target` text NOT NULL,
	`secret` blob,
	`size` integer NOT NULL,
	`arrived_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`not_before` integer DEFAULT 0 NOT NULL,
	`lease_until` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notifications_not_before` ON `notifications` (`not_before`);--> statement-breakpoint
CREATE INDEX `notifications_upload_id` ON `notifications` (`upload_id`);--> statement-breakpoint
ALTER TABLE `file_requests` ADD `notify_email` text;--> statement-breakpoint
ALTER TABLE `file_requests` ADD `notify_webhook` text;--> statement-breakpoint
ALTER TABLE `file_requests` ADD `notify_webhook_secret` blob;