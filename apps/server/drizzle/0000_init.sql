CREATE TABLE `blob_deletions` (
	`key` text PRIMARY KEY NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`queued_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `notes` (
	`id` text PRIMARY KEY NOT NULL,
	`content_type` text NOT NULL,
	`encrypted_content` blob NOT NULL,
	`nonce` blob NOT NULL,
	`salt` text NOT NULL,
	`max_views` integer NOT NULL,
	`view_count` integer DEFAULT 0 NOT NULL,
	`has_password` integer NOT NULL,
	`password_salt` text,
	`password_algo` text,
	`auth_token_hash` blob NOT NULL,
	`owner_token_hash` blob NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notes_expires_at` ON `notes` (`expires_at`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` blob NOT NULL
);
--> statement-breakpoint
CREATE TABLE `upload_quota` (
	`client_hash` text NOT NULL,
	`window_start` integer NOT NULL,
	`bytes` integer NOT NULL,
	PRIMARY KEY(`client_hash`, `window_start`)
);
--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` text PRIMARY KEY NOT NULL,
	`size` integer NOT NULL,
	`salt` text NOT NULL,
	`file_count` integer NOT NULL,
	`max_downloads` integer NOT NULL,
	`download_count` integer DEFAULT 0 NOT NULL,
	`has_password` integer NOT NULL,
	`password_salt` text,
	`password_algo` text,
	`auth_token_hash` blob NOT NULL,
	`owner_token_hash` blob NOT NULL,
	`encrypted_meta` text,
	`meta_nonce` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `uploads_expires_at` ON `uploads` (`expires_at`);