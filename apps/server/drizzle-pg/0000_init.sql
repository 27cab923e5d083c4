CREATE TABLE "blob_deletions" (
	"key" text PRIMARY KEY NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"queued_at" bigint NOT NULL,
	"not_before" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "file_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"vault" "bytea" NOT NULL,
	"vault_nonce" "bytea" NOT NULL,
	"brief_ciphertext" "bytea" NOT NULL,
	"brief_nonce" "bytea" NOT NULL,
	"upload_token_hash" "bytea" NOT NULL,
	"inbox_token_hash" "bytea" NOT NULL,
	"inbox_owner_token_hash" "bytea" NOT NULL,
	"has_password" boolean NOT NULL,
	"max_uploads" integer NOT NULL,
	"max_size" bigint NOT NULL,
	"downloads" integer NOT NULL,
	"reserved_uploads" integer DEFAULT 0 NOT NULL,
	"used_uploads" integer DEFAULT 0 NOT NULL,
	"used_bytes" bigint DEFAULT 0 NOT NULL,
	"closed" boolean DEFAULT false NOT NULL,
	"created_at" bigint NOT NULL,
	"closes_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notes" (
	"id" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"encrypted_content" "bytea" NOT NULL,
	"nonce" "bytea" NOT NULL,
	"salt" text NOT NULL,
	"max_views" integer NOT NULL,
	"view_count" integer DEFAULT 0 NOT NULL,
	"has_password" boolean NOT NULL,
	"password_salt" text,
	"password_algo" text,
	"auth_token_hash" "bytea" NOT NULL,
	"owner_token_hash" "bytea" NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "request_daily_counts" (
	"client_key" text NOT NULL,
	"day_start" bigint NOT NULL,
	"count" integer NOT NULL,
	CONSTRAINT "request_daily_counts_client_key_day_start_pk" PRIMARY KEY("client_key","day_start")
);
--> statement-breakpoint
CREATE TABLE "request_uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"request_id" text NOT NULL,
	"size" bigint NOT NULL,
	"file_count" integer NOT NULL,
	"salt" "bytea" NOT NULL,
	"wrap_enc" "bytea" NOT NULL,
	"wrap_ciphertext" "bytea" NOT NULL,
	"encrypted_meta" "bytea" NOT NULL,
	"meta_nonce" "bytea" NOT NULL,
	"download_count" integer DEFAULT 0 NOT NULL,
	"max_downloads" integer NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"last_download_at" bigint
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" "bytea" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tombstones" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"owner_token_hash" "bytea" NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "upload_quota" (
	"client_hash" text NOT NULL,
	"window_start" bigint NOT NULL,
	"bytes" bigint NOT NULL,
	CONSTRAINT "upload_quota_client_hash_window_start_pk" PRIMARY KEY("client_hash","window_start")
);
--> statement-breakpoint
CREATE TABLE "uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"salt" text NOT NULL,
	"file_count" integer NOT NULL,
	"max_downloads" integer NOT NULL,
	"download_count" integer DEFAULT 0 NOT NULL,
	"has_password" boolean NOT NULL,
	"password_salt" text,
	"password_algo" text,
	"auth_token_hash" "bytea" NOT NULL,
	"owner_token_hash" "bytea" NOT NULL,
	"encrypted_meta" text,
	"meta_nonce" text,
	"created_at" bigint NOT NULL,
	"expires_at" bigint NOT NULL,
	"last_download_at" bigint
);
--> statement-breakpoint
ALTER TABLE "request_uploads" ADD CONSTRAINT "request_uploads_request_id_file_requests_id_fk" FOREIGN KEY ("request_id") REFERENCES "public"."file_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "file_requests_closes_at" ON "file_requests" USING btree ("closes_at");--> statement-breakpoint
CREATE INDEX "notes_expires_at" ON "notes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "request_uploads_request_id" ON "request_uploads" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "request_uploads_expires_at" ON "request_uploads" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "tombstones_expires_at" ON "tombstones" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "uploads_expires_at" ON "uploads" USING btree ("expires_at");