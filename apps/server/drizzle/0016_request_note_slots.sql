ALTER TABLE `file_requests` ADD `note_slots` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `file_requests` ADD `reserved_notes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `file_requests` ADD `used_notes` integer DEFAULT 0 NOT NULL;