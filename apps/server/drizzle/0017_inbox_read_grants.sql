PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_read_grants` (
	`token_hash` blob PRIMARY KEY NOT NULL,
	`upload_id` text,
	`request_upload_id` text,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`upload_id`) REFERENCES `uploads`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`request_upload_id`) REFERENCES `request_uploads`(`id`) ON UPDATE no action ON DELETE cascade,
	CONSTRAINT "read_grants_one_holder" CHECK((`upload_id` is null) <> (`request_upload_id` is null))
);
--> statement-breakpoint
INSERT INTO `__new_read_grants`("token_hash", "upload_id", "expires_at") SELECT "token_hash", "upload_id", "expires_at" FROM `read_grants`;--> statement-breakpoint
DROP TABLE `read_grants`;--> statement-breakpoint
ALTER TABLE `__new_read_grants` RENAME TO `read_grants`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `read_grants_upload_id` ON `read_grants` (`upload_id`);--> statement-breakpoint
CREATE INDEX `read_grants_request_upload_id` ON `read_grants` (`request_upload_id`);--> statement-breakpoint
CREATE INDEX `read_grants_expires_at` ON `read_grants` (`expires_at`);