import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";
import { DomainError, type ErrorKind } from "@/server/errors";
import { log } from "@/server/log";

/** An error on the wire: status, the spec's {error, code?, ...extra} and any headers it needs. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}

const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unprocessable: 422,
  internal: 500,
  not_implemented: 501,
  upstream_failed: 502,
  unavailable: 503,
  timed_out: 504,
};

function fromDomainError(error: DomainError): HttpError {
  const headers: Record<string, string> =
    error.kind === "unauthenticated" ? { "WWW-Authenticate": 'Bearer realm="svc"' } : {};
  return new HttpError(STATUS_OF[error.kind], error.message, error.code, error.extra, headers);
}

function describeZodError(error: ZodError): string {
  const first = error.issues[0];
  if (!first) return "Invalid input";
  const where = first.path.length ? `${first.path.join(".")}: ` : "";
  return `Invalid input: ${where}${first.message}`;
}

const validationError = (message: string) => new HttpError(400, message, "VALIDATION_ERROR");

function fromTrpcError(error: TRPCError): HttpError | undefined {
  switch (error.code) {
    case "PARSE_ERROR":
      return validationError("Request body is not valid JSON");
    case "BAD_REQUEST":
      return validationError(error.message);
    case "NOT_FOUND":
      return new HttpError(404, "Not found");
    case "UNSUPPORTED_MEDIA_TYPE":
      return new HttpError(415, error.message, "UNSUPPORTED_MEDIA_TYPE");
    case "PAYLOAD_TOO_LARGE":
      return new HttpError(413, "Payload too large", "PAYLOAD_TOO_LARGE");
    case "METHOD_NOT_SUPPORTED":
      return new HttpError(405, "Method not allowed");
    default:
      return undefined;
  }
}

/** Maps anything thrown while serving a request to its wire form; unknown failures become 500. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof DomainError) return fromDomainError(error);
  if (error instanceof ZodError) return validationError(describeZodError(error));
  if (error instanceof TRPCError) {
    if (error.cause instanceof HttpError || error.cause instanceof DomainError || error.cause instanceof ZodError)
      return toHttpError(error.cause);
    const mapped = fromTrpcError(error);
    if (mapped) return mapped;
  }
  log().error({ err: error }, "unexpected error");
  return new HttpError(500, "Internal server error", "INTERNAL_ERROR");
}

/** The wire shape of the spec: {error, code?, ...extra}. */
export function errorBody(error: HttpError): Record<string, unknown> {
  return { error: error.message, ...(error.code ? { code: error.code } : {}), ...error.extra };
}

export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const httpError = toHttpError(error);
  return Response.json(errorBody(httpError), {
    status: httpError.status,
    headers: { ...headers, ...httpError.headers },
  });
}
