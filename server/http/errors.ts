import { TRPCError } from "@trpc/server";
import { ZodError } from "zod";

/** The one error type of the service: status, message, optional machine code and extra fields. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "AppError";
  }
}

export const badRequest = (message: string, code?: string, extra?: Record<string, unknown>) =>
  new AppError(400, message, code, extra);
export const unauthorized = (message = "Authentication required") =>
  new AppError(401, message, undefined, {}, { "WWW-Authenticate": 'Bearer realm="svc"' });
export const forbidden = (message = "Forbidden", code?: string, extra?: Record<string, unknown>) =>
  new AppError(403, message, code, extra);
export const notFound = (message = "Not found") => new AppError(404, message);
export const conflict = (message: string, code?: string, extra?: Record<string, unknown>) =>
  new AppError(409, message, code, extra);
export const gone = (message = "Gone", code?: string) => new AppError(410, message, code);
export const unprocessable = (message: string, code?: string, extra?: Record<string, unknown>) =>
  new AppError(422, message, code, extra);
export const payloadTooLarge = (message = "Payload too large") => new AppError(413, message, "PAYLOAD_TOO_LARGE");

function describeZodError(error: ZodError): string {
  const first = error.issues[0];
  if (!first) return "Invalid input";
  const where = first.path.length ? `${first.path.join(".")}: ` : "";
  return `Invalid input: ${where}${first.message}`;
}

/** Maps anything thrown while serving a request to an AppError; unknown failures become 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof ZodError) return badRequest(describeZodError(error), "VALIDATION_ERROR");
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause;
    if (error.cause instanceof ZodError) return badRequest(describeZodError(error.cause), "VALIDATION_ERROR");
    switch (error.code) {
      case "PARSE_ERROR":
        return badRequest("Request body is not valid JSON", "VALIDATION_ERROR");
      case "BAD_REQUEST":
        return badRequest(error.message, "VALIDATION_ERROR");
      case "NOT_FOUND":
        return notFound();
      case "UNSUPPORTED_MEDIA_TYPE":
        return new AppError(415, error.message, "UNSUPPORTED_MEDIA_TYPE");
      case "PAYLOAD_TOO_LARGE":
        return payloadTooLarge();
      case "METHOD_NOT_SUPPORTED":
        return new AppError(405, "Method not allowed");
      default:
        break;
    }
  }
  console.error("[svc] unexpected error", error);
  return new AppError(500, "Internal server error", "INTERNAL_ERROR");
}

/** The wire shape of the spec: {error, code?, ...extra}. */
export function errorBody(error: AppError): Record<string, unknown> {
  return { error: error.message, ...(error.code ? { code: error.code } : {}), ...error.extra };
}

export function errorResponse(error: unknown, headers: Record<string, string> = {}): Response {
  const appError = toAppError(error);
  return Response.json(errorBody(appError), {
    status: appError.status,
    headers: { ...headers, ...appError.headers },
  });
}
