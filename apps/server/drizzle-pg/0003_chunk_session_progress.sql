ALTER TABLE "chunk_sessions" ADD COLUMN "next_index" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chunk_sessions" ADD COLUMN "written_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chunk_sessions" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "chunk_sessions" ADD COLUMN "quota_hash" text;--> statement-breakpoint
ALTER TABLE "chunk_sessions" ADD COLUMN "quota_window" bigint;--> statement-breakpoint
ALTER TABLE "chunk_sessions" ADD COLUMN "quota_bytes" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "chunk_sessions_request_id" ON "chunk_sessions" USING btree ("request_id");