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

// Web pages (contracts/web.md): large inputs are paginated or collapsed, never sent whole.
/** Files of a change's diff shown per page. */
export const DIFF_PAGE_FILES = 50;
/** Diff lines shown for one file; a longer file diff is collapsed with a note. */
export const DIFF_FILE_LINES_MAX = 1500;
/** Entries of one directory listed per page of the tree view. */
export const TREE_PAGE_ENTRIES = 300;
/** Lines of a file shown per page of the file view. */
export const BLOB_PAGE_LINES = 2000;
