CREATE TABLE `chunk_parts` (
	`session_id` text NOT NULL,
	`chunk_index` integer NOT NULL,
	`size` integer NOT NULL,
	`ref` text NOT NULL,
	`etag` text,
	PRIMARY KEY(`session_id`, `chunk_index`)
);
--> statement-breakpoint
CREATE TABLE `chunk_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`context` text NOT NULL,
	`declared_size` integer NOT NULL,
	`received_bytes` integer DEFAULT 0 NOT NULL,
	`state` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_activity` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `chunk_sessions_last_activity` ON `chunk_sessions` (`last_activity`);