// The area's front door: imports from the hosting provider, sync, and their streams.
export { queueDueSyncs } from "./auto-sync";
export { receiveProviderWebhook } from "./provider-webhook-endpoint";
export { fetchImport, swapImport } from "./runner";
export { IMPORT_REQUESTED_EVENT } from "./service";
export { importStreamResponse, syncStreamResponse } from "./streams";
export { SYNC_REQUESTED_EVENT, projectSourceOf } from "./sync";
export { runSync } from "./sync-runner";
export { importMetrics } from "./metrics";
