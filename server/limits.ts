// The spec's limits the code enforces, in one place (an area adds the ones it needs when it lands).
export const NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,63})$/;
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const RATE_LIMIT_PER_MINUTE = 1000;
export const ISSUE_TITLE_MAX = 200;
export const TEXT_BODY_MAX = 20_000;
export const LABELS_MAX = 20;
export const LABEL_LENGTH_MAX = 50;
export const ISSUE_QUERY_MAX = 200;
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 500;
export const ACTIVITY_LIMIT_DEFAULT = 50;
export const ACTIVITY_LIMIT_MAX = 200;
export const COMMIT_LOG_DEPTH_DEFAULT = 20;
export const BRANCH_LIST_CAP = 200;
/** Blobs above this are reported as kind too_large by the content route. */
export const CONTENT_VIEW_BYTES_MAX = 1024 * 1024;
export const MERGE_BATCH_MAX = 80;
export const WORKSPACE_COMMIT_FILES_MAX = 2000;
export const WORKSPACE_COMMIT_BYTES_MAX = 25 * 1024 * 1024;
export const RESOLUTION_FILE_BYTES_MAX = 10 * 1000 * 1000;
export const ACTIVE_TOKENS_MAX = 20;
export const TOKEN_EXPIRY_DAYS_MIN = 1;
export const TOKEN_EXPIRY_DAYS_MAX = 365;
/** The event-outbox sweep (the spec's deployment enqueue sweep): every five minutes. */
export const OUTBOX_SWEEP_CRON = "*/5 * * * *";
/** Cap on ordinary JSON request bodies (PAYLOAD_TOO_LARGE beyond); workspace commits have their own. */
export const JSON_BODY_BYTES_MAX = 1024 * 1024;
/** Git smart HTTP: a push's request body (commands + pack); beyond it the push fails (413 when declared up front). */
export const GIT_PUSH_BYTES_MAX = 2 * 1024 * 1024 * 1024;
/** Git smart HTTP: a fetch negotiation body after gunzip (wants and haves, not packs). */
export const GIT_NEGOTIATION_BYTES_MAX = 64 * 1024 * 1024;
/** Request bodies of the MCP endpoint (/mcp): 413 above this. */
export const MCP_BODY_BYTES_MAX = 4 * 1024 * 1024;
/** OAuth for MCP clients: an authorization code lives this long, and is good for one exchange. */
export const OAUTH_CODE_TTL_SECONDS = 300;
/** OAuth access tokens (svc_oauth_ grants) expire after this; refresh tokens renew them. */
export const OAUTH_ACCESS_TOKEN_TTL_SECONDS = 3600;
/** A refresh token not used within this many days is dead (each use rotates it). */
export const OAUTH_REFRESH_TOKEN_TTL_DAYS = 30;
/** Dynamic client registration: redirect URIs per client, and the length of each. */
export const OAUTH_REDIRECT_URIS_MAX = 10;
export const OAUTH_REDIRECT_URI_LENGTH_MAX = 2000;
