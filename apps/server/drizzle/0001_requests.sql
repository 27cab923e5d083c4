CREATE TABLE `file_requests` (
	`id` text PRIMARY KEY NOT NULL,
	`vault` blob NOT NULL,
	`vault_nonce` blob NOT NULL,
	`brief_ciphertext` blob NOT NULL,
	`brief_nonce` blob NOT NULL,
	`upload_token_hash` blob NOT NULL,
	`inbox_token_hash` blob NOT NULL,
	`inbox_owner_token_hash` blob NOT NULL,
	`has_password` integer NOT NULL,
	`max_uploads` integer NOT NULL,
	`max_size` integer NOT NULL,
	`downloads` integer NOT NULL,
	`reserved_uploads` integer DEFAULT 0 NOT NULL,
	`used_uploads` integer DEFAULT 0 NOT NULL,
	`used_bytes` integer DEFAULT 0 NOT NULL,
	`closed` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`closes_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `file_requests_closes_at` ON `file_requests` (`closes_at`);--> statement-breakpoint
CREATE TABLE `request_daily_counts` (
	`client_key` text NOT NULL,
	`day_start` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`client_key`, `day_start`)
);
--> statement-breakpoint
CREATE TABLE `request_uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`request_id` text NOT NULL,
	`size` integer NOT NULL,
	`file_count` integer NOT NULL,
	`salt` blob NOT NULL,
	`wrap_enc` blob NOT NULL,
	`wrap_ciphertext` blob NOT NULL,
	`encrypted_meta` blob NOT NULL,
	`meta_nonce` blob NOT NULL,
	`download_count` integer DEFAULT 0 NOT NULL,
	`max_downloads` integer NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`request_id`) REFERENCES `file_requests`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `request_uploads_request_id` ON `request_uploads` (`request_id`);--> statement-breakpoint
CREATE INDEX `request_uploads_expires_at` ON `request_uploads` (`expires_at`);