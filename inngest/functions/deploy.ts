import { OUTBOX_SWEEP_CRON } from "@/server/limits";
import { inngest } from "@/server/jobs";
import {
  abandonDeployment,
  DEPLOYMENT_REQUESTED_EVENT,
  enqueueDeployments,
  runDeployment,
  startDeployment,
} from "@/server/deployments";

/**
 * Runs one deployment attempt: start (running, or skipped; supersedes older waiting ones), then the
 * provider call and the outcome. A crash inside the provider step re-runs that step only, and the
 * deployment's call count makes the repeat visible (webhook: same X-Svc-Delivery; command: fails).
 * A step that fails on every retry ends the deployment `failed` rather than leaving it running.
 */
export const deploymentRun = inngest.createFunction(
  { id: "deployment-run", triggers: [{ event: DEPLOYMENT_REQUESTED_EVENT }], retries: 3 },
  async ({ event, step }) => {
    const id = String(event.data.deploymentId);
    try {
      const started = await step.run("start", () => startDeployment(id));
      if (!started.entry) return started;
      const entry = started.entry;
      return await step.run("call-provider", () => runDeployment(id, entry));
    } catch (error) {
      return step.run("give-up", () => abandonDeployment(id, (error as Error).message));
    }
  },
);

/** Every five minutes: hands the deploy outbox (queued deployments whose send failed) to the queue. */
export const deploymentOutboxSweep = inngest.createFunction(
  {
    id: "deployment-outbox-sweep",
    name: "Deployment outbox sweep",
    triggers: [{ cron: OUTBOX_SWEEP_CRON }],
    retries: 2,
  },
  async ({ step }) => ({ enqueued: await step.run("enqueue-outbox", () => enqueueDeployments()) }),
);
