/**
 * The objects of a bucket, page by page, as ListObjectsV2 answers them.
 * May touch: the network (S3 listing).
 */
import { ListObjectsV2Command, type _Object, type S3Client } from '@aws-sdk/client-s3'

/** Every page of the objects under `prefix` (all objects without one), in key order. */
export async function* objectPages(
  client: S3Client,
  bucket: string,
  prefix?: string,
): AsyncIterable<_Object[]> {
  let token: string | undefined
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    )
    yield page.Contents ?? []
    token = page.IsTruncated ? page.NextContinuationToken : undefined
  } while (token)
}
