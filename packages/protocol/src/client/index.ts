/** The client core shared by the command line and the web app: every call to the server. */
export { ApiError, isApiError, parseRetryAfter } from './api-error.js'
export { ApiClient } from './api.js'
export type { ApiOptions, ApiMethod, ApiRequestInit, ProgressFetch } from './api.js'
export type {
  WebSocketLike,
  WebSocketFactory,
  WebSocketMessageLike,
  WebSocketCloseLike,
} from './web-socket.js'
export { bytesSource, dropBytes, sourceNameAt } from './source.js'
export type { PayloadSource } from './source.js'
export { crc32 } from './crc32.js'
export { zipSize, zipEntryAt, createZipStream } from './zip.js'
export type { ArchiveEntry, ZipOptions } from './zip.js'
export {
  readZipDirectory,
  openZipEntry,
  canOpenZipEntry,
  MAX_DIRECTORY_SIZE,
} from './zip-reader.js'
export type { ArchiveBytes, ZipDirectory, ZipEntryInfo } from './zip-reader.js'
export { fingerprintChange, type FingerprintEntry, type SourceFingerprint } from './fingerprint.js'
export { ciphertextFrom, sourceChanged, type CiphertextFromOptions } from './ciphertext-from.js'
export { uploadCiphertext, resumeUpload, cancelUnfinished, WS_CLOSE_KEEP } from './upload.js'
export {
  SealedRecords,
  admitRecords,
  RECORDS_AWAITING_KEEPER,
  type SealKeeper,
} from './sealed-records.js'
export {
  fetchUploadStatus,
  isConnectionLoss,
  resumeDelay,
  FINISHED,
  type UploadSession,
  type UploadStatus,
  type StatusTarget,
} from './upload-status.js'
export type {
  UploadTransport,
  UploadProgress,
  UploadCallbacks,
  UploadTarget,
  UploadCiphertextOptions,
  UploadResult,
  ResumeOptions,
  ResumeEvent,
} from './upload.js'
export type { KeptState, StateResumeOptions, UploadState } from './caller-upload.js'
export {
  sendFile,
  resumeSendFile,
  unlockFileUploadState,
  isLockedFileUploadState,
  inspectFile,
  unlockFile,
  downloadFile,
  deleteFile,
} from './files.js'
export type {
  SendFileOptions,
  SentFile,
  FileResumeOptions,
  FileUploadState,
  OpenFileUploadState,
  LockedFileUploadState,
  PasswordLockState,
  UnlockedFile,
  DownloadOptions,
  DownloadResult,
} from './files.js'
export { ReadGrantLapsed } from './download-resume.js'
export { FileRanges, openFileRanges } from './download-ranges.js'
export type { FileRangesOptions } from './download-ranges.js'
export { answerRange, recordSpan, sealedRecordLength } from './plain-range.js'
export type { RangeAnswer, RecordSpan } from './plain-range.js'
export type { DownloadResumeOptions, RangeOpener } from './download-resume.js'
export { createNote, inspectNote, unlockNote, viewNote, deleteNote } from './notes.js'
export type { CreateNoteOptions, CreatedNote, UnlockedNote, ViewedNote } from './notes.js'
export {
  createFileRequest,
  openRequest,
  sendToRequest,
  resumeSendToRequest,
  sendNoteToRequest,
} from './requests.js'
export type {
  CreateFileRequestOptions,
  CreatedFileRequest,
  OpenedRequest,
  SendToRequestOptions,
  SentToRequest,
  RequestResumeOptions,
  RequestUploadState,
} from './requests.js'
export {
  openInbox,
  downloadInboxFile,
  openInboxFileRanges,
  deleteInboxFile,
  closeInbox,
  deleteInbox,
} from './inbox.js'
export type { OpenedInbox, InboxFile } from './inbox.js'
export { groupEntries, isNoteEntry, type EntryGroup } from './inbox-groups.js'
export {
  PASSWORD_LIST_FORMAT,
  PASSWORD_LIST_VERSION,
  emptyEntry,
  isBlankEntry,
  parsePasswordList,
  safeEntryUrl,
  serializePasswordList,
  type PasswordEntry,
} from './password-list.js'
export { submissionFits, submissionsLeft, submissionsUsed } from './submissions.js'
export type { RequestRoom, RequestUsage, SubmissionParts } from './submissions.js'
export { REQUEST_NOTE_FILE } from './requests.js'
export {
  CHUNK_BUSY_DELAYS_MS,
  CHUNK_RETRY_DELAYS_MS,
  WS_FRAME_MAX_BYTES,
  WS_MAX_BUFFERED_BYTES,
} from './upload.js'
export { deferred, type Deferred } from './deferred.js'
export { requireServerId, type ServerIdKind } from './server-id.js'
export { listApiTokens, createApiToken, revokeApiToken } from './tokens.js'
