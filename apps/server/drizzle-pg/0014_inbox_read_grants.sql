ALTER TABLE "read_grants" ALTER COLUMN "upload_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "read_grants" ADD COLUMN "request_upload_id" text;--> statement-breakpoint
ALTER TABLE "read_grants" ADD CONSTRAINT "read_grants_request_upload_id_request_uploads_id_fk" FOREIGN KEY ("request_upload_id") REFERENCES "public"."request_uploads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "read_grants_request_upload_id" ON "read_grants" USING btree ("request_upload_id");--> statement-breakpoint
ALTER TABLE "read_grants" ADD CONSTRAINT "read_grants_one_holder" CHECK (("read_grants"."upload_id" is null) <> ("read_grants"."request_upload_id" is null));