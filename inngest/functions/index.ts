import type { InngestFunction } from "inngest";
import { backupRun, restoreRun } from "./backup";
import { deletionJob } from "./deletion";
import { jobsPrune } from "./jobs-prune";
import { workspaceKeysSweep } from "./workspace-keys-sweep";
import { deploymentOutboxSweep, deploymentRun } from "./deploy";
import { outboxSweep } from "./outbox-sweep";
import { webhookDeliver, webhookFanOut, webhookPruneLogs } from "./webhooks";
import { importJob } from "./import";
import { syncJob } from "./sync";
import { autoSync } from "./auto-sync";
import { hostVerdict } from "./host-verdict";
import { promotedChangeFollow } from "./promoted-changes";

/** Every function served at /api/inngest; areas add theirs here. */
export const functions: InngestFunction.Any[] = [
  outboxSweep,
  deletionJob,
  webhookFanOut,
  webhookDeliver,
  webhookPruneLogs,
  jobsPrune,
  deploymentRun,
  deploymentOutboxSweep,
  importJob,
  syncJob,
  autoSync,
  backupRun,
  restoreRun,
  hostVerdict,
  promotedChangeFollow,
  workspaceKeysSweep,
];
