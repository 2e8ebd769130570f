// The area's front door: other areas import from here, never from inside the area.
export { openApiDocument } from "./openapi";
export { handleRestRequest } from "./rest";
export { handleTrpcRequest } from "./trpc-endpoint";
export { handleBackupArchiveRequest, handleMetricsRequest, handleRestoreRequest } from "./admin-endpoints";
