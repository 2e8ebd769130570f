// The area's front door: other areas import from here, never from inside the area.
export { bodyLimitFor, cappedBody, formToObject, parseJsonBody, readBodyText } from "./body";
export { clientAddress, PEER_ADDRESS_HEADER } from "./client-address";
export { assertSameOrigin, isSafeMethod } from "./csrf";
export { HttpError, errorBody, errorResponse, toHttpError } from "./errors";
export {
  booleanish,
  boundedInt,
  isStorableText,
  listLimit,
  listOffset,
  nameSlug,
  namedSchema,
  namespaceSegment,
  pathSegment,
  text,
} from "./params";
export { namedRateLimiter, rateLimited, rateLimitHeaders, requestRateLimiter } from "./rate-limit";
export { sharedRedis } from "./shared-redis";
export { assertAuthenticationAllowed, countFailedAuthentication } from "./auth-failures";
export { assertWellFormedUrl } from "./url";
export { corsHeaders, preflightHeaders } from "./cors";
export { ifNoneMatchMatches, strongEtag, versionEtag } from "./etag";
export { cursorHeaders, paginationHeaders } from "./pagination";
export { requestIdOf } from "./request-id";
export { headFromGet } from "./head";
export { noteIdentity, noteTool, withTraceNotes, type TraceNotes } from "./request-trace";
