/**
 * The errors domain code throws. An error says what went wrong (its kind) and, where a client
 * must tell cases apart, a machine code from the catalogue below; it knows nothing of HTTP.
 * server/http/errors.ts alone turns a kind into a status and an error into the wire shape.
 */

export type ErrorKind =
  | "invalid"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "gone"
  | "too_large"
  | "unprocessable"
  | "internal"
  | "not_implemented"
  | "upstream_failed"
  | "unavailable"
  | "timed_out";

/** Every machine code the service answers with: the spec's, plus those our own contracts add. */
export type ErrorCode =
  | "VALIDATION_ERROR"
  | "INVALID_INPUT"
  | "INVALID_PATH"
  | "CONFLICT"
  | "CHANGE_NOT_MERGEABLE"
  | "BRANCH_EXISTS"
  | "BRANCH_NAME_CONFLICT"
  | "AMBIGUOUS_REF"
  | "TAG_EXISTS"
  | "SEARCH_TIMEOUT"
  | "NO_DEFAULT_BRANCH"
  | "DEFAULT_BRANCH_PROTECTED"
  | "PROTECTION_BLOCKED"
  | "MERGE_CONFLICT"
  | "STALE_BASE"
  | "STALE_PROJECT"
  | "STALE_WORKSPACE"
  | "WORKSPACE_UNVERIFIABLE"
  | "TARGET_DELETING"
  | "SECRET_DETECTED"
  | "EVALUATION_FAILED"
  | "EVAL_PREP_FAILED"
  | "JOB_ALREADY_ENDED"
  | "SESSION_REQUIRED"
  | "SESSION_EXPIRED"
  | "TOKEN_SCOPE_INSUFFICIENT"
  | "TOKEN_LIMIT_REACHED"
  | "ADMIN_REQUIRES_DIRECT_CREDENTIAL"
  | "CSRF"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "GIT_ERROR"
  | "NAMESPACE_TAKEN"
  | "LAST_OWNER"
  | "NOT_ORG_MEMBER"
  | "NOT_REDRIVABLE"
  | "INSTANCE_NOT_EMPTY"
  | "BACKUP_NOT_READY"
  | "BACKUP_INVALID"
  | "PUSH_TIMEOUT"
  | "DEPLOY_QUEUE_UNAVAILABLE"
  | "DEPLOY_SECRET_KEY_MISSING"
  | "DEPLOYMENT_NOT_PENDING"
  | "DEPLOYMENT_NOT_RETRYABLE"
  | "DEPLOYMENT_RETRY_EXISTS"
  | "IMPORT_IN_PROGRESS"
  | "SYNC_DIVERGED"
  | "AUTH_ERROR"
  | "GITHUB_ERROR"
  | "INTERNAL_ERROR";

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly code?: ErrorCode,
    /** Fields the answer carries beside {error, code}, e.g. a conflict's currentHead. */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "DomainError";
  }
}

type Extra = Record<string, unknown>;

export const invalid = (message: string, code?: ErrorCode, extra?: Extra) =>
  new DomainError("invalid", message, code, extra);
export const unauthenticated = (message = "Authentication required", code?: ErrorCode) =>
  new DomainError("unauthenticated", message, code);
export const forbidden = (message = "Forbidden", code?: ErrorCode, extra?: Extra) =>
  new DomainError("forbidden", message, code, extra);
export const notFound = (message = "Not found") => new DomainError("not_found", message);
export const conflict = (message: string, code?: ErrorCode, extra?: Extra) =>
  new DomainError("conflict", message, code, extra);
export const gone = (message = "Gone", code?: ErrorCode) => new DomainError("gone", message, code);
export const tooLarge = (message = "Payload too large") => new DomainError("too_large", message, "PAYLOAD_TOO_LARGE");
export const unprocessable = (message: string, code?: ErrorCode, extra?: Extra) =>
  new DomainError("unprocessable", message, code, extra);
export const notImplemented = (message: string) => new DomainError("not_implemented", message);
/** Something we depend on (git, an evaluator's input) failed in a way the caller cannot fix. */
export const internal = (message: string, code: ErrorCode) => new DomainError("internal", message, code);
/** A binding the operation needs is not configured on this instance (503). */
export const unavailable = (message: string, code: ErrorCode) => new DomainError("unavailable", message, code);
/** An operation ran past its bound and was stopped (504). */
export const timedOut = (message: string, code: ErrorCode) => new DomainError("timed_out", message, code);
export const upstreamFailed = (message: string, code: ErrorCode) => new DomainError("upstream_failed", message, code);

/** The error is a refusal of the caller's request (not a failure of ours). */
export const isRefusal = (error: unknown): error is DomainError =>
  error instanceof DomainError &&
  error.kind !== "internal" &&
  error.kind !== "upstream_failed" &&
  error.kind !== "unavailable" &&
  error.kind !== "timed_out";
