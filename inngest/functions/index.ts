import type { InngestFunction } from "inngest";
import { backupRun, restoreRun } from "./backup";
import { deletionJob } from "./deletion";
import { jobsPrune } from "./jobs-prune";
import { outboxSweep } from "./outbox-sweep";
import { webhookDeliver, webhookFanOut, webhookPruneLogs } from "./webhooks";

/** Every function served at /api/inngest; areas add theirs here. */
export const functions: InngestFunction.Any[] = [outboxSweep, deletionJob, webhookFanOut, webhookDeliver, webhookPruneLogs, jobsPrune, backupRun, restoreRun];
