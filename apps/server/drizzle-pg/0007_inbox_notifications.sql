CREATE TABLE "notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"upload_id" text NOT NULL,
	"request_id" text NOT NULL,
	"channel" text NOT NULL,
	"target" text NOT NULL,
	"secret" "bytea",
	"size" bigint NOT NULL,
	"arrived_at" bigint NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"not_before" bigint DEFAULT 0 NOT NULL,
	"lease_until" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "file_requests" ADD COLUMN "notify_email" text;--> statement-breakpoint
ALTER TABLE "file_requests" ADD COLUMN "notify_webhook" text;--> statement-breakpoint
ALTER TABLE "file_requests" ADD COLUMN "notify_webhook_secret" "bytea";--> statement-breakpoint
CREATE INDEX "notifications_not_before" ON "notifications" USING btree ("not_before");--> statement-breakpoint
CREATE INDEX "notifications_upload_id" ON "notifications" USING btree ("upload_id");