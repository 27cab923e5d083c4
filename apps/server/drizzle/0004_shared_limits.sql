CREATE TABLE `lockouts` (
	`entry_hash` text PRIMARY KEY NOT NULL,
	`failures` integer NOT NULL,
	`locked_until` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `lockouts_expires_at` ON `lockouts` (`expires_at`);--> statement-breakpoint
CREATE TABLE `rate_limit_windows` (
	`client_hash` text PRIMARY KEY NOT NULL,
	`slot` integer NOT NULL,
	`counts` text NOT NULL,
	`allowed` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rate_limit_windows_slot` ON `rate_limit_windows` (`slot`);--> statement-breakpoint
ALTER TABLE `upload_quota` ADD `held` integer DEFAULT 0 NOT NULL;