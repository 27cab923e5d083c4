CREATE TABLE `tombstones` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`owner_token_hash` blob NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `tombstones_expires_at` ON `tombstones` (`expires_at`);