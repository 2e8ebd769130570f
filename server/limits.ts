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

// ---------------------------------------------------------------- admin (contracts/admin.md)
/** Audit list page size: default and maximum. */
export const AUDIT_LIST_LIMIT_DEFAULT = 50;
export const AUDIT_LIST_LIMIT_MAX = 200;
/** Entries read per query while `verify` walks the audit chain. */
export const AUDIT_VERIFY_BATCH = 1000;
/** A `deleting` deletion job untouched this long counts as stalled (re-drivable) when Inngest runs the jobs. */
export const DELETION_STALL_SECONDS = 15 * 60;
/** Ended job runs and processed job events are kept this long, then pruned (jobs-prune). */
export const JOB_ROWS_RETENTION_DAYS = 7;
/** Rows deleted per statement while pruning, so no delete holds its locks for long. */
export const JOB_PRUNE_BATCH = 1000;
/** Rows inserted per statement while a restore loads a table. */
export const RESTORE_INSERT_BATCH = 1000;
/** Largest backup archive a restore accepts (bytes, unpacked members together). */
export const RESTORE_ARCHIVE_BYTES_MAX = 64 * 1024 ** 3;
