ALTER TABLE `chunk_sessions` ADD `next_index` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `chunk_sessions` ADD `written_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `chunk_sessions` ADD `request_id` text;--> statement-breakpoint
ALTER TABLE `chunk_sessions` ADD `quota_hash` text;--> statement-breakpoint
ALTER TABLE `chunk_sessions` ADD `quota_window` integer;--> statement-breakpoint
ALTER TABLE `chunk_sessions` ADD `quota_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `chunk_sessions_request_id` ON `chunk_sessions` (`request_id`);