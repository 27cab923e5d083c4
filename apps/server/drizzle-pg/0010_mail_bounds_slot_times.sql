ALTER TABLE "file_requests" ADD COLUMN "slot_reserved_at" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "file_requests" ADD COLUMN "notify_emails_queued" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "mailed_at" bigint;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "mail_lease_until" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "reports" SET "mailed_at" = "created_at";