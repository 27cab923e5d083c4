CREATE TABLE "streamed_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"request_id" text,
	"transport" text NOT NULL,
	"declared_size" bigint NOT NULL,
	"bytes_written" bigint DEFAULT 0 NOT NULL,
	"next_index" integer,
	"writer_state" text NOT NULL,
	"context" text NOT NULL,
	"quota" text NOT NULL,
	"holder" text,
	"heartbeat_at" bigint NOT NULL,
	"last_activity" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "streamed_sessions_last_activity" ON "streamed_sessions" USING btree ("last_activity");--> statement-breakpoint
CREATE INDEX "streamed_sessions_request_id" ON "streamed_sessions" USING btree ("request_id");