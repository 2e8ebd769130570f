// The area's front door: other areas import from here, never from inside the area.
export { bodyLimitFor, formToObject, parseJsonBody, readBodyText } from "./body";
export { assertSameOrigin, isSafeMethod } from "./csrf";
export { HttpError, errorBody, errorResponse, toHttpError } from "./errors";
export { booleanish, boundedInt, listLimit, listOffset, nameSlug, namespaceSegment, pathSegment, text } from "./params";
export { rateLimitHeaders, requestRateLimiter } from "./rate-limit";
export { assertWellFormedUrl } from "./url";
