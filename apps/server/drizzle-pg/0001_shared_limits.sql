CREATE TABLE "lockouts" (
	"entry_hash" text PRIMARY KEY NOT NULL,
	"failures" integer NOT NULL,
	"locked_until" bigint NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rate_limit_windows" (
	"client_hash" text PRIMARY KEY NOT NULL,
	"slot" bigint NOT NULL,
	"counts" integer[] NOT NULL,
	"allowed" boolean NOT NULL
);
--> statement-breakpoint
ALTER TABLE "upload_quota" ADD COLUMN "held" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "lockouts_expires_at" ON "lockouts" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "rate_limit_windows_slot" ON "rate_limit_windows" USING btree ("slot");