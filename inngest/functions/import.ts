import { inngest } from "@/server/jobs";
import { IMPORT_REQUESTED_EVENT, fetchImport, swapImport } from "@/server/imports";

/**
 * Runs one queued import in two durable steps. `fetch` is the whole clone into a staging
 * repository: if the process dies mid-clone the executor runs it again once its lease expires,
 * and it takes the import over and fetches from scratch. Once `fetch` is recorded, a restart
 * resumes at `swap`, which puts the kept staging repository in place (the project's repository
 * is replaced only whole). Failures are recorded by the steps themselves, so they are not retried.
 */
export const importJob = inngest.createFunction(
  {
    id: "import-project",
    name: "Import a repository",
    triggers: [{ event: IMPORT_REQUESTED_EVENT }],
    retries: 0,
    concurrency: { limit: 1, key: "event.data.importId" },
  },
  async ({ event, step }) => {
    const importId = String(event.data.importId);
    const fetched = await step.run("fetch", () => fetchImport(importId, Number(event.data.lease)));
    if (fetched.status !== "fetched") return fetched;
    return step.run("swap", () => swapImport(importId, fetched));
  },
);
