CREATE TABLE "read_grants" (
	"token_hash" "bytea" PRIMARY KEY NOT NULL,
	"upload_id" text NOT NULL,
	"expires_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "read_grants" ADD CONSTRAINT "read_grants_upload_id_uploads_id_fk" FOREIGN KEY ("upload_id") REFERENCES "public"."uploads"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "read_grants_upload_id" ON "read_grants" USING btree ("upload_id");--> statement-breakpoint
CREATE INDEX "read_grants_expires_at" ON "read_grants" USING btree ("expires_at");