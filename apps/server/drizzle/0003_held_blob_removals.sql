ALTER TABLE `blob_deletions` ADD `not_before` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `request_uploads` ADD `last_download_at` integer;--> statement-breakpoint
ALTER TABLE `uploads` ADD `last_download_at` integer;