CREATE TABLE "upload_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"request_id" text,
	"transport" text NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"declared_size" bigint NOT NULL,
	"bytes_written" bigint DEFAULT 0 NOT NULL,
	"received_bytes" bigint DEFAULT 0 NOT NULL,
	"next_index" integer,
	"writer_state" text,
	"parts_upload" text,
	"context" text NOT NULL,
	"quota" text DEFAULT '' NOT NULL,
	"resumable" boolean DEFAULT true NOT NULL,
	"holder" text,
	"heartbeat_at" bigint NOT NULL,
	"last_activity" bigint NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
-- Sessions under way carry over: the rows of the stream writer, then those of the chunk writer.
INSERT INTO "upload_sessions" ("id", "kind", "request_id", "transport", "state", "declared_size", "bytes_written", "received_bytes", "next_index", "writer_state", "parts_upload", "context", "quota", "resumable", "holder", "heartbeat_at", "last_activity", "created_at")
SELECT "id", "kind", "request_id", "transport", 'open', "declared_size", "bytes_written", "bytes_written", "next_index", "writer_state", NULL, "context", "quota", "resumable", "holder", "heartbeat_at", "last_activity", "created_at"
FROM "streamed_sessions";--> statement-breakpoint
INSERT INTO "upload_sessions" ("id", "kind", "request_id", "transport", "state", "declared_size", "bytes_written", "received_bytes", "next_index", "writer_state", "parts_upload", "context", "quota", "resumable", "holder", "heartbeat_at", "last_activity", "created_at")
SELECT "id", CASE WHEN "request_id" IS NULL THEN 'upload' ELSE 'request' END, "request_id", 'chunks', "state", "declared_size", "written_bytes", "received_bytes", "next_index", NULL, "parts_upload", "context", CASE WHEN "quota_hash" IS NULL OR "quota_window" IS NULL THEN '' ELSE json_build_object('clientHash', "quota_hash", 'windowStart', "quota_window", 'bytes', "quota_bytes")::text END, "holder" IS NULL, "holder", COALESCE("heartbeat_at", "last_activity"), "last_activity", "created_at"
FROM "chunk_sessions";--> statement-breakpoint
DROP TABLE "chunk_sessions" CASCADE;--> statement-breakpoint
DROP TABLE "streamed_sessions" CASCADE;--> statement-breakpoint
CREATE INDEX "upload_sessions_last_activity" ON "upload_sessions" USING btree ("last_activity");--> statement-breakpoint
CREATE INDEX "upload_sessions_request_id" ON "upload_sessions" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "upload_sessions_holder" ON "upload_sessions" USING btree ("holder");