import type { InngestFunction } from "inngest";
import { deletionJob } from "./deletion";
import { outboxSweep } from "./outbox-sweep";
import { webhookDeliver, webhookFanOut, webhookPruneLogs } from "./webhooks";
import { importJob } from "./import";
import { syncJob } from "./sync";
import { autoSync } from "./auto-sync";
import { hostVerdict } from "./host-verdict";

/** Every function served at /api/inngest; areas add theirs here. */
export const functions: InngestFunction.Any[] = [outboxSweep, deletionJob, webhookFanOut, webhookDeliver, webhookPruneLogs, importJob, syncJob, autoSync, hostVerdict];
