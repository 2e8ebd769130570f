// The area's front door: other areas import from here, never from inside the area.
export { openApiDocument } from "./openapi";
export { handleRestRequest } from "./rest";
export { handleTrpcRequest } from "./trpc-endpoint";
export { appRouter } from "./router";
export type { AppRouter } from "./router";
export { pageAction, pageCaller, refusalOf } from "./page-caller";
export type { PageCaller } from "./page-caller";
export { handleBackupArchiveRequest, handleMetricsRequest, handleRestoreRequest } from "./admin-endpoints";
export { handleRateLimitedPage, rateLimitedPageFor } from "./rate-limited-page";
export { traced } from "./request-log";
export { handleArchiveRequest, handleChangeDiffRequest, handleRawRequest } from "./code-endpoints";
export { patchHunks } from "@/server/changes";
export { eventSentence, subjectText } from "@/server/events";
export type { EventSubject, SentencePart } from "@/server/events";
export { avatarResponse } from "@/server/users";
