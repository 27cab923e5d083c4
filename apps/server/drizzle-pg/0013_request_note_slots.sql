ALTER TABLE "file_requests" ADD COLUMN "note_slots" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "file_requests" ADD COLUMN "reserved_notes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "file_requests" ADD COLUMN "used_notes" integer DEFAULT 0 NOT NULL;