/**
 * File upload sessions: opening, resuming, turning a committed session into a record, and the
 * owner's deletion, which cancels a session still open (the record's life is upload-records.ts).
 * May touch: table uploads; the metrics registry; the rest through sessions/ and the quota.
 */
import {
  Declaration,
  ERROR_MESSAGES,
  fromBase64Url,
  type Decoded,
  type DeclarationLimits,
  type DeclaredSizeHeader,
  type ReceivedHeaderValues,
} from '@fileshare/protocol'
import { eq } from 'drizzle-orm'
import { randomUUID } from 'node:crypto'

import { hashToken } from '../access/tokens.js'
import { HttpError } from '../http-error.js'
import { recordUploadFailed, recordUploadStarted, trackUploadSession } from '../metrics/recorder.js'
import type { SessionScope } from '../sessions/chunk-intake.js'
import type { ChunkSessions } from '../sessions/chunk-sessions.js'
import type { FinishingSession } from '../sessions/finishing-session.js'
import type { Admission } from '../sessions/session-holds.js'
import { decodeSpec, encodeSpec, type UploadSpec } from '../sessions/stored-contexts.js'
import type { NewSession, UploadSession } from '../sessions/upload-session.js'
import { decodedOrThrow } from '../validation.js'
import { requireOwner, UploadRecords, type UploadsDeps } from './upload-records.js'

/** The context of a normal upload session (request uploads carry another). */
export interface FileUploadContext {
  kind: 'file'
  spec: UploadSpec
}

export function isFileUploadContext(context: unknown): context is FileUploadContext {
  return (context as FileUploadContext | undefined)?.kind === 'file'
}

/** The context of a session from what its row keeps. */
function fileContext(stored: string): FileUploadContext {
  return { kind: 'file', spec: decodeSpec(stored) }
}

/** A declaration checked at init: what the session keeps, and the owner token its finalize needs. */
export interface DeclaredUpload {
  spec: UploadSpec
  ownerToken: string
}

/** The transports of the stream writer: chunked uploads have the chunk writer. */
type StreamTransport = 'ws' | 'single'

export class UploadsService extends UploadRecords {
  constructor(deps: UploadsDeps) {
    super(deps)
    deps.sessions.registerKind<FileUploadContext>('upload', {
      restore: (row) => ({ spec: this.sessionSpec(fileContext(row.context), 'ws') }),
    })
  }

  /** The settings of a session; a single request's ends after UPLOAD_SESSION_IDLE_SEC idle. */
  private sessionSpec(
    context: FileUploadContext,
    transport: StreamTransport,
  ): NewSession<FileUploadContext> {
    const idleMs = transport === 'ws' ? null : this.deps.config.uploadSessionIdleSec * 1000
    return { declaredSize: context.spec.size, context, idleMs }
  }

  /** The declaration in an upload's headers, checked against the settings. */
  declaredInHeaders(headers: ReceivedHeaderValues, sizeHeader: DeclaredSizeHeader): DeclaredUpload {
    return this.declared((limits) => Declaration.fromHeaders(headers, limits, sizeHeader))
  }

  /** The declaration in an upload socket's `init` frame, checked as the headers are. */
  declaredInFrame(frameHeaders: unknown): DeclaredUpload {
    return this.declared((limits) => Declaration.fromFrame(frameHeaders, limits))
  }

  /** The declaration `decode` reads within the settings' limits, or its 400 or 413 as the spec says. */
  private declared(decode: (limits: DeclarationLimits) => Decoded<Declaration>): DeclaredUpload {
    const { config } = this.deps
    const declaration = decodedOrThrow(
      decode({
        downloadOptions: config.fileDownloadOptions,
        expireOptionsSec: config.fileExpireOptionsSec,
        maxFilesPerUpload: config.fileMaxFilesPerUpload,
        maxSize: config.fileMaxSize,
      }),
    )
    const { password } = declaration
    const spec: UploadSpec = {
      size: declaration.size,
      salt: declaration.salt,
      maxDownloads: declaration.maxDownloads,
      expireSec: declaration.expireSec,
      fileCount: declaration.fileCount,
      hasPassword: password !== null,
      passwordSalt: password?.salt ?? null,
      passwordAlgo: password?.algo ?? null,
      authTokenHash: hashToken(fromBase64Url(declaration.authToken)),
      ownerTokenHash: hashToken(fromBase64Url(declaration.ownerToken)),
    }
    return { spec, ownerToken: declaration.ownerToken }
  }

  get chunkSessions(): ChunkSessions {
    return this.deps.chunkSessions
  }

  /** Opens a stream writer's session, holding the declared size against the client's quota. */
  async begin(
    spec: UploadSpec,
    clientIp: string,
    transport: StreamTransport,
    resumable = false,
  ): Promise<UploadSession<FileUploadContext>> {
    const { sessions } = this.deps
    const context: FileUploadContext = { kind: 'file', spec }
    const durable =
      transport === 'single'
        ? undefined
        : { kind: 'upload' as const, requestId: null, context: encodeSpec(spec), resumable }
    const admit = this.admission(clientIp, spec.size)
    const session = await sessions.create(this.sessionSpec(context, transport), admit, durable)
    trackUploadSession(session, transport)
    return session
  }

  /** Resumes the unfinished upload `id` over a new WebSocket (docs/api.md, resume). */
  resume(
    id: string,
    ownerToken: string | undefined,
    offset: number,
  ): Promise<UploadSession<FileUploadContext>> {
    return this.deps.sessions.resume<FileUploadContext>(id, 'upload', offset, (row) =>
      requireOwner(ownerToken, decodeSpec(row.context).ownerTokenHash),
    )
  }

  /**
   * Finalizes, whichever writer holds the session: the blob is committed before the record, so a
   * crash between the two leaves an orphan blob for the cleanup job, never a record without blob.
   */
  async finalize(session: FinishingSession<FileUploadContext>, ownerToken: string | undefined) {
    const { expireSec, ...spec } = session.context.spec
    requireOwner(ownerToken, spec.ownerTokenHash)
    const now = this.deps.now()
    const row = { ...spec, id: session.id, createdAt: now, expiresAt: now + expireSec * 1000 }
    await session.finish(
      async (tx) => {
        await tx.insert(this.deps.db.tables.uploads).values(row)
      },
      () => this.deps.janitor.remove(session.id),
    )
    return session.id
  }

  /** The declared size held against the client's quota, by the transaction writing the row. */
  private admission(clientIp: string, size: number): Admission {
    return async (on) => ({ quota: await this.deps.quota.reserve(clientIp, size, on), slot: null })
  }

  /** Opens a chunked upload (spec: POST /api/upload/init), its quota hold named on its row. */
  async beginChunked(spec: UploadSpec, clientIp: string, resumable: boolean): Promise<string> {
    const id = randomUUID()
    const opening = {
      declaredSize: spec.size,
      context: encodeSpec(spec),
      requestId: null,
      resumable,
    }
    await this.deps.chunkSessions.open(id, opening, this.admission(clientIp, spec.size))
    recordUploadStarted('chunks')
    return id
  }

  get chunkScope(): SessionScope {
    return { requestId: null, maxChunkSize: this.deps.config.fileChunkMaxSize }
  }

  /** Open chunked upload `id`, on whichever instance it was opened; 404 when there is none. */
  async chunked(id: string): Promise<FinishingSession<FileUploadContext>> {
    const session = await this.openChunked(id)
    if (!session) throw new HttpError(404, ERROR_MESSAGES.uploadNotFound)
    return session
  }

  private openChunked(id: string): Promise<FinishingSession<FileUploadContext> | undefined> {
    return this.deps.chunkSessions.opened(id, null, fileContext)
  }

  /**
   * Deletes the record, then the blob (spec: DELETE /api/upload/:id); an unfinished session is
   * cancelled with the same owner token. A takedown's tombstone stays, answering 410.
   */
  async delete(id: string, ownerToken: string | undefined): Promise<void> {
    const chunked = await this.openChunked(id)
    if (chunked) {
      requireOwner(ownerToken, chunked.context.spec.ownerTokenHash)
      await chunked.abort()
      recordUploadFailed('chunks')
      return
    }
    const session = this.deps.sessions.get(id, isFileUploadContext)
    if (session) {
      requireOwner(ownerToken, session.context.spec.ownerTokenHash)
      await session.abort()
      return
    }
    const dormant = await this.deps.sessions.findDormant(id)
    if (dormant?.kind === 'upload') {
      requireOwner(ownerToken, decodeSpec(dormant.context).ownerTokenHash)
      await this.deps.sessions.endDormant(dormant)
      return
    }
    const upload = {
      kind: 'upload' as const,
      id,
      row: await this.stored(id),
      deleteRow: async () => {
        const { uploads } = this.deps.db.tables
        await this.deps.db.query.delete(uploads).where(eq(uploads.id, id))
        await this.deps.janitor.remove(id)
        return true
      },
      messages: {
        notFound: ERROR_MESSAGES.uploadNotFound,
        wrongOwner: ERROR_MESSAGES.invalidOrMissingOwnerToken,
      },
    }
    await this.deps.tombstones.deleteAsOwner(upload, ownerToken)
  }
}
