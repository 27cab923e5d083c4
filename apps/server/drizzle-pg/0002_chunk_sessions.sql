CREATE TABLE "chunk_parts" (
	"session_id" text NOT NULL,
	"chunk_index" integer NOT NULL,
	"size" bigint NOT NULL,
	"ref" text NOT NULL,
	"etag" text,
	CONSTRAINT "chunk_parts_session_id_chunk_index_pk" PRIMARY KEY("session_id","chunk_index")
);
--> statement-breakpoint
CREATE TABLE "chunk_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"context" text NOT NULL,
	"declared_size" bigint NOT NULL,
	"received_bytes" bigint DEFAULT 0 NOT NULL,
	"state" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_activity" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "chunk_sessions_last_activity" ON "chunk_sessions" USING btree ("last_activity");