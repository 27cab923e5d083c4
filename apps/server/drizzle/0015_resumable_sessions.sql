ALTER TABLE `chunk_sessions` ADD `holder` text;--> statement-breakpoint
ALTER TABLE `chunk_sessions` ADD `heartbeat_at` integer;--> statement-breakpoint
ALTER TABLE `streamed_sessions` ADD `resumable` integer DEFAULT true NOT NULL;