import { inngest } from "@/server/jobs";
import { IMPORT_REQUESTED_EVENT, runImport } from "@/server/imports";

/**
 * Runs one queued import. The step is the whole clone: if the process dies mid-clone the executor
 * runs the step again once its lease expires, and runImport takes the import over and fetches
 * from scratch into a fresh staging repository (the project's repository is replaced only whole).
 * Failures are recorded by runImport itself, so the step is not retried.
 */
export const importJob = inngest.createFunction(
  { id: "import-project", name: "Import a repository", triggers: [{ event: IMPORT_REQUESTED_EVENT }], retries: 0, concurrency: { limit: 1, key: "event.data.importId" } },
  async ({ event, step }) => step.run("import", () => runImport(String(event.data.importId), Number(event.data.lease))),
);
