import { inngest } from "@/server/jobs";
import { sweepDeadKeys } from "@/server/workspaces";

/** Records in the audit log the workspace keys that died unseen (expired, deleted, access_lost, revoked): docs/agents.md. */
export const workspaceKeysSweep = inngest.createFunction(
  { id: "workspace-keys-sweep", triggers: [{ cron: "*/10 * * * *" }] },
  async ({ step }) => step.run("sweep", () => sweepDeadKeys()),
);
