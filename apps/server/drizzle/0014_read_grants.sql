CREATE TABLE `read_grants` (
	`token_hash` blob PRIMARY KEY NOT NULL,
	`upload_id` text NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`upload_id`) REFERENCES `uploads`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `read_grants_upload_id` ON `read_grants` (`upload_id`);--> statement-breakpoint
CREATE INDEX `read_grants_expires_at` ON `read_grants` (`expires_at`);