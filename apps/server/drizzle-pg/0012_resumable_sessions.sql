ALTER TABLE "chunk_sessions" ADD COLUMN "holder" text;--> statement-breakpoint
ALTER TABLE "chunk_sessions" ADD COLUMN "heartbeat_at" bigint;--> statement-breakpoint
ALTER TABLE "streamed_sessions" ADD COLUMN "resumable" boolean DEFAULT true NOT NULL;