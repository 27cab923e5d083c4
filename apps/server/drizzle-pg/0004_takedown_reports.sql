CREATE TABLE "reports" (
	"id" serial PRIMARY KEY NOT NULL,
	"target_id" text NOT NULL,
	"reason" text NOT NULL,
	"key" text,
	"status" text DEFAULT 'open' NOT NULL,
	"created_at" bigint NOT NULL,
	"closed_at" bigint
);
--> statement-breakpoint
ALTER TABLE "tombstones" ADD COLUMN "removed_at" bigint;--> statement-breakpoint
ALTER TABLE "tombstones" ADD COLUMN "takedown_reason" text;--> statement-breakpoint
CREATE INDEX "reports_status" ON "reports" USING btree ("status");