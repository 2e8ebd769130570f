import crypto from "node:crypto";

/** What an incoming X-Request-Id must look like to be echoed (anything else could forge log lines). */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: a valid incoming X-Request-Id, else a new UUID. */
export function requestIdOf(req: Request): string {
  const incoming = req.headers.get("x-request-id");
  return incoming && VALID_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}
