CREATE TABLE `reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`target_id` text NOT NULL,
	`reason` text NOT NULL,
	`key` text,
	`status` text DEFAULT 'open' NOT NULL,
	`created_at` integer NOT NULL,
	`closed_at` integer
);
--> statement-breakpoint
CREATE INDEX `reports_status` ON `reports` (`status`);--> statement-breakpoint
ALTER TABLE `tombstones` ADD `removed_at` integer;--> statement-breakpoint
ALTER TABLE `tombstones` ADD `takedown_reason` text;