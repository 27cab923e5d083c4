CREATE TABLE `streamed_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`request_id` text,
	`transport` text NOT NULL,
	`declared_size` integer NOT NULL,
	`bytes_written` integer DEFAULT 0 NOT NULL,
	`next_index` integer,
	`writer_state` text NOT NULL,
	`context` text NOT NULL,
	`quota` text NOT NULL,
	`holder` text,
	`heartbeat_at` integer NOT NULL,
	`last_activity` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `streamed_sessions_last_activity` ON `streamed_sessions` (`last_activity`);--> statement-breakpoint
CREATE INDEX `streamed_sessions_request_id` ON `streamed_sessions` (`request_id`);