// The spec's limits the code enforces, in one place (an area adds the ones it needs when it lands).
export const NAME_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,63})$/;
export const RATE_LIMIT_WINDOW_MS = 60_000;
export const RATE_LIMIT_PER_MINUTE = 1000;
/** Callers without credentials, per address (the spec leaves it open). */
export const RATE_LIMIT_ANONYMOUS_PER_MINUTE = 60;
/**
 * Callers (identities or addresses) one in-memory limiter counts at once: past it, the windows of
 * past minutes go first, then the longest-counted callers (who start afresh: a flood of new
 * addresses must not grow the process without end).
 */
export const RATE_LIMIT_KEYS_MAX = 100_000;
export const ISSUE_TITLE_MAX = 200;
export const TEXT_BODY_MAX = 20_000;
export const LABELS_MAX = 20;
export const LABEL_LENGTH_MAX = 50;
export const ISSUE_QUERY_MAX = 200;
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 500;
export const ACTIVITY_LIMIT_DEFAULT = 50;
export const ACTIVITY_LIMIT_MAX = 200;
/** Events on a profile page; actors a page may ask names for at once. */
export const PROFILE_ACTIVITY_MAX = 30;
export const ACTOR_NAMES_MAX = 500;
/** A person's display name; a sign-in provider's avatar URL kept for them. */
export const DISPLAY_NAME_MAX = 64;
export const AVATAR_URL_MAX = 2048;
export const COMMIT_LOG_DEPTH_DEFAULT = 20;
export const BRANCH_LIST_CAP = 200;
/** Blobs above this are reported as kind too_large by the content route. */
export const CONTENT_VIEW_BYTES_MAX = 1024 * 1024;
export const MERGE_BATCH_MAX = 80;
/** GET .../queue: entries per answer (docs/contracts.md#merge-queue). */
export const QUEUE_LIST_LIMIT_DEFAULT = 100;
export const QUEUE_LIST_LIMIT_MAX = 500;
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

// ---------------------------------------------------------------- admin (docs/contracts.md#administration)
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
/** Deployment secret store: names and the largest value (bytes of UTF-8). */
export const SECRET_NAME_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
export const SECRET_VALUE_BYTES_MAX = 4096;
export const DEPLOYMENTS_LIMIT_DEFAULT = 50;
export const DEPLOYMENTS_LIMIT_MAX = 200;
/** A deployment's provider: default and longest run, and how much of its output is kept as logTail. */
export const DEPLOY_TIMEOUT_MS_DEFAULT = 600_000;
export const DEPLOY_TIMEOUT_MS_MAX = 3_600_000;
export const DEPLOY_LOG_TAIL_BYTES = 64 * 1024;
/** Heap limit of a command deployment in the sandbox. */
export const DEPLOY_COMMAND_MEMORY_MB = 2048;
/** How long a request waits for background evaluators (policy `evaluation.waitSeconds`, `?wait=`). */
export const EVALUATION_WAIT_SECONDS_DEFAULT = 30;
export const EVALUATION_WAIT_SECONDS_MAX = 300;
/** Processes one sandbox run may have at once (a pids cgroup, else RLIMIT_NPROC of its own uid). */
export const RUNNER_PROCESSES_MAX = 512;
/**
 * The niceness a run's checkout and commands start at (the server's is 0). It orders processes
 * within one session's autogroup: the checkouts the launcher starts go behind the server's requests;
 * a run's command is a session of its own, weighed as one group (server/runners/limits.ts). A run
 * cannot lower it again (that needs CAP_SYS_NICE in the host's namespace).
 */
export const RUNNER_NICENESS = 10;
/** Imports: requests (import or retry) per minute per user; one import in flight per project. */
export const IMPORT_RATE_PER_MINUTE = 3;
/** A running import whose heartbeat is older than this is re-queued by the status route. */
export const IMPORT_STALL_MS = 5 * 60_000;
/** How often a running import writes its heartbeat and progress (and looks for a cancel). */
export const IMPORT_HEARTBEAT_MS = 1_000;
/** Import and sync SSE streams: one status object every 2 seconds. */
export const SSE_INTERVAL_MS = 2_000;
/** A sync stream closes itself after 5 minutes. */
export const SYNC_STREAM_LIFETIME_MS = 5 * 60_000;
/** Auto-sync frequency in minutes (settings) and its default. */
export const SYNC_FREQUENCY_MIN = 10;
export const SYNC_FREQUENCY_MAX = 10_080;
export const SYNC_FREQUENCY_DEFAULT = 60;
export const SYNC_HISTORY_LIMIT_DEFAULT = 50;
export const SYNC_HISTORY_LIMIT_MAX = 200;
/** The auto-sync cron: every five minutes it syncs projects whose frequency has elapsed. */
export const AUTO_SYNC_CRON = "*/5 * * * *";
/** A sync whose history has no merge base (shallow import) deepens by this many commits, this many times. */
export const SYNC_DEEPEN_STEP = 100;
export const SYNC_DEEPEN_ATTEMPTS = 3;
/** A sync that loses the compare-and-swap on the default branch to a concurrent write recomputes this often. */
export const SYNC_CAS_ATTEMPTS = 5;
/** The inbound provider webhook's body (GitHub caps its payloads at 25 MB). */
export const PROVIDER_WEBHOOK_BYTES_MAX = 25 * 1024 * 1024;
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
// Web pages (docs/contracts.md#web-pages): large inputs are paginated or collapsed, never sent whole.
/** Files of a change's diff shown per page. */
export const DIFF_PAGE_FILES = 50;
/** The most context lines the change page expands a file to (git's -U): below this length, the whole file. */
export const DIFF_EXPAND_CONTEXT_MAX = 1000;
/** How many files of a change page may be expanded at once (each is one more `git diff`). */
export const DIFF_EXPAND_FILES_MAX = 5;
/** Diff lines shown for one file; a longer file diff is collapsed with a note. */
export const DIFF_FILE_LINES_MAX = 1500;
/** Entries of one directory listed per page of the tree view. */
export const TREE_PAGE_ENTRIES = 300;
/** Lines of a file shown per page of the file view. */
export const BLOB_PAGE_LINES = 2000;
/** Rows inserted per statement while a restore loads a table. */
export const RESTORE_INSERT_BATCH = 1000;
/**
 * Largest backup archive a restore accepts, by default (RESTORE_ARCHIVE_BYTES_MAX): the upload is
 * counted as it streams in (413 PAYLOAD_TOO_LARGE beyond), and so are the unpacked members.
 */
export const RESTORE_ARCHIVE_BYTES_MAX = 64 * 1024 ** 3;
/**
 * A restore's bound on writing one repository from its bundle (verify, fetch, refs), by default
 * (RESTORE_PUSH_TIMEOUT_MS); beyond it the restore fails with PUSH_TIMEOUT and keeps nothing.
 */
export const RESTORE_PUSH_TIMEOUT_MS = 30 * 60_000;

// Reading code (docs/contracts.md#reading-code).
/** A file's patch over this many bytes is withheld (`patch: null, tooLarge: true`). */
export const DIFF_PATCH_BYTES_MAX = 1024 * 1024;
export const DIFF_FILES_DEFAULT = 100;
export const DIFF_FILES_MAX = 300;
export const DIFF_CONTEXT_DEFAULT = 3;
export const DIFF_CONTEXT_MAX = 20;
/** A compare lists at most this many of head's commits, oldest first. */
export const COMPARE_COMMITS_MAX = 250;
/** A file's content is in the JSON of GET .../contents up to this size; above, `encoding: "none"` and the raw route's URL (as GitHub's contents API). */
export const CONTENTS_BYTES_MAX = 1024 * 1024;
export const SEARCH_QUERY_MAX = 1000;
export const SEARCH_MATCHES_DEFAULT = 100;
export const SEARCH_MATCHES_MAX = 1000;
/** A matched line longer than this is cut. */
export const SEARCH_LINE_CHARS_MAX = 1000;
/** A search still running after this long is stopped and answered 422 SEARCH_TIMEOUT (default of SEARCH_TIME_LIMIT_MS). */
export const SEARCH_TIME_LIMIT_MS = 10_000;
/** A workspace key's life in minutes (docs/contracts.md#agents): at most a day, an hour by default. */
export const WORKSPACE_KEY_TTL_MINUTES_MAX = 1440;
export const WORKSPACE_KEY_TTL_MINUTES_DEFAULT = 60;
/** A workspace key's display name. */
export const WORKSPACE_KEY_NAME_MAX = 100;
/** A comment line on an idle change event stream this often keeps proxies from closing it. */
export const CHANGE_STREAM_KEEPALIVE_MS = 15_000;
/** An MCP session (resource subscriptions) with no request and no open stream this long is closed. */
export const MCP_SESSION_IDLE_MS = 30 * 60 * 1000;
/** Stream messages an MCP session keeps for a client that reconnects with Last-Event-ID. */
export const MCP_SESSION_EVENTS_KEPT = 256;
/** MCP sessions one credential holds on one instance: a new one beyond this closes its least recently used. */
export const MCP_SESSIONS_PER_CREDENTIAL = 16;
/** Changes one MCP session follows at once: a resources/subscribe beyond this is refused (unsubscribe first). */
export const MCP_SUBSCRIPTIONS_PER_SESSION = 256;
