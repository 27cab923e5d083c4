/** The wire format of the fileshare API: every body, header set, frame, route and message. */
export { ROUTES, PATHS, ENDPOINTS, OWN_ENDPOINTS, API_PREFIX, AUTH_PREFIX } from './routes.js'
export type { RouteName, RoutePattern, HttpMethod, Endpoint } from './routes.js'

export { HEADERS, RECEIVED_HEADERS } from './headers.js'
export type {
  HeaderName,
  BooleanHeader,
  AuthTokenHeaders,
  OwnerTokenHeaders,
  UploadTokenHeaders,
  InboxTokenHeaders,
  InboxOwnerTokenHeaders,
  BearerAuthHeaders,
  RateLimitHeaders,
  RetryAfterHeaders,
} from './headers.js'

export { PASSWORD_ALGO } from './common.js'
export type {
  Uuid,
  IsoTimestamp,
  Base64,
  Base64Url,
  CanonicalBase64Url,
  PasswordAlgo,
  PasswordFields,
  OkResponse,
  IdResponse,
} from './common.js'

export { ERROR_MESSAGES, TAKEDOWN_REASON, isTakedown } from './errors.js'
export type { ErrorMessageKey, ErrorMessage, ErrorResponse } from './errors.js'

export {
  UPLOAD_SALT_BYTES,
  FILE_TOKEN_BYTES,
  NOTE_SALT_BYTES,
  NOTE_NONCE_BYTES,
  PASSWORD_SALT_BYTES,
  NOTE_OVERHEAD_BYTES,
  REQUEST_VAULT_BYTES,
  REQUEST_VAULT_NONCE_BYTES,
  REQUEST_TOKEN_BYTES,
  REQUEST_SALT_BYTES,
  REQUEST_WRAP_ENC_BYTES,
  REQUEST_WRAP_CIPHERTEXT_BYTES,
  REQUEST_META_MIN_BYTES,
  REQUEST_META_MAX_BYTES,
  REQUEST_META_NONCE_BYTES,
  BRIEF_CIPHERTEXT_BLOCK_BYTES,
  BRIEF_CIPHERTEXT_TAG_BYTES,
  BRIEF_CIPHERTEXT_MIN_BYTES,
  BRIEF_CIPHERTEXT_MAX_BYTES,
  BRIEF_NONCE_BYTES,
  REQUEST_BODY_MAX_BYTES,
  REQUEST_FINALIZE_BODY_MAX_BYTES,
  REQUEST_CHUNK_MAX_BYTES,
  UPLOAD_CHUNK_BYTES,
  DEFAULT_CONCURRENT_CHUNKS,
  WS_HANDSHAKE_TIMEOUT_MS,
  WS_INIT_TIMEOUT_MS,
  WS_CONTROL_FRAME_MAX_BYTES,
  REQUEST_WS_MIN_PROGRESS_BYTES,
  REQUEST_WS_PROGRESS_WINDOW_MS,
  REQUEST_HTTP_SESSION_TIMEOUT_MS,
} from './limits.js'

export {
  CHUNK_INDEX_PARAM,
  DOWNLOAD_CONTENT_TYPE,
  DOWNLOAD_CACHE_CONTROL,
  READ_GRANT_REQUEST,
  UPLOAD_STATUS_TRANSPORTS,
  parseByteRange,
} from './uploads.js'
export type {
  UploadSettingsHeaders,
  UploadPasswordHeaders,
  UploadHeaders,
  UploadInitHeaders,
  UploadResponse,
  UploadInitResponse,
  ChunkQuery,
  ChunkResponse,
  FinalizeUploadHeaders,
  FinalizeUploadResponse,
  SaveMetaHeaders,
  SaveMetaBody,
  SaveMetaResponse,
  UploadInfoResponse,
  UploadMetaFields,
  ExistsResponse,
  DownloadHeaders,
  DownloadStreamHeaders,
  PresignedDownloadResponse,
  ReadGrantRequestHeaders,
  ReadGrantResponseHeaders,
  GrantedReadHeaders,
  PartialContentHeaders,
  PasswordCheckHeaders,
  PasswordCheckResponse,
  DeleteUploadHeaders,
  DeleteUploadResponse,
  UploadStatusTransport,
  UploadStatusHeaders,
  UploadStatusResponse,
} from './uploads.js'

export { DECLARATION_HEADERS, Declaration, invalidDeclaration } from './declaration.js'
export type {
  Decoded,
  DeclarationLimits,
  DeclarationRefusal,
  DeclaredSizeHeader,
  ReceivedHeaderValues,
} from './declaration.js'
export { RequestDeclaration } from './request-declaration.js'
export type { RequestDeclarationLimits } from './request-declaration.js'

export { WS_CLOSE_CODES } from './ws-frames.js'
export type {
  WsCloseCode,
  UploadWsPasswordHeaders,
  UploadWsInitHeaders,
  UploadWsInitFrame,
  UploadWsResumableField,
  UploadWsFinalizeFrame,
  UploadWsReadyFrame,
  UploadWsDoneFrame,
  UploadWsErrorFrame,
  UploadWsClientFrame,
  UploadWsServerFrame,
  RequestUploadWsInit,
  RequestUploadWsInitFrame,
  RequestUploadWsFinalizeFrame,
  RequestUploadWsErrorFrame,
  RequestUploadWsClientFrame,
  RequestUploadWsServerFrame,
} from './ws-frames.js'

export { NOTE_CONTENT_TYPES } from './notes.js'
export type {
  NoteContentType,
  CreateNoteBody,
  CreateNoteResponse,
  NoteValidationDetails,
  NoteValidationErrorResponse,
  NoteInfoResponse,
  NoteViewBody,
  NoteViewResponse,
  NotePasswordBody,
  NotePasswordResponse,
  DeleteNoteHeaders,
  DeleteNoteResponse,
} from './notes.js'

export {
  CREATE_FILE_REQUEST_FIELDS,
  FILE_REQUEST_BRIEF_FIELDS,
  NOTIFICATION_SIGNATURE_HEADER,
  NOTIFICATION_SIZE_CLASSES,
  REQUEST_UPLOAD_FINALIZE_FIELDS,
  notificationSizeClass,
} from './requests.js'
export type {
  FileRequestBrief,
  CreateFileRequestBody,
  CreateFileRequestResponse,
  FileRequestLimitResponse,
  ReadFileRequestHeaders,
  FileRequestResponse,
  RequestUploadInitHeaders,
  RequestUploadInitResponse,
  RequestUploadChunkResponse,
  CancelRequestUploadResponse,
  RequestUploadFinalizeBody,
  RequestUploadFinalizeResponse,
  RequestNotification,
  NotificationSizeClass,
} from './requests.js'

export type {
  InboxEntry,
  InboxHeaders,
  InboxResponse,
  InboxFileStreamHeaders,
  InboxFilePresignedResponse,
  InboxManagementHeaders,
  InboxManagementResponse,
} from './inbox.js'

export { reportPath, REPORT_REASON_MAX_CHARS, REPORT_BODY_MAX_BYTES } from './reports.js'
export type { ReportBody, ReportResponse } from './reports.js'

export type { LoginRequirements, ConfigResponse } from './config.js'

export { HEALTH_STATUS_OK, QUOTA_DISABLED } from './system.js'
export type { HealthResponse, QuotaResponse } from './system.js'

export {
  SESSION_COOKIE_NAME,
  PKCE_COOKIE_NAME,
  PKCE_COOKIE_MAX_AGE_SEC,
  DEFAULT_SESSION_DURATION_SEC,
  CLI_CALLBACK_PARAM,
  CLI_TOKEN_PARAM,
  CLI_CALLBACK_PREFIXES,
  OIDC_PROVIDERS,
} from './auth.js'
export type { OidcProvider, LoginQuery, SessionResponse, SessionPayload } from './auth.js'

export {
  API_TOKEN_PREFIX,
  API_TOKEN_BYTES,
  API_TOKEN_SCOPES,
  API_TOKEN_NAME_MAX,
  API_TOKEN_MAX_DAYS,
  API_TOKENS_PER_USER,
  API_TOKEN_BODY_MAX_BYTES,
  API_TOKEN_MESSAGES,
  isApiToken,
} from './tokens.js'
export type {
  ApiTokenScope,
  CreateApiTokenBody,
  ApiTokenInfo,
  CreateApiTokenResponse,
  ApiTokenListResponse,
} from './tokens.js'
