import { inngest } from "@/server/jobs";
import { HOST_VERDICT_EVENT, publishHostVerdict } from "@/server/changes";

/** Posts a promoted change's latest verdict to its pull request (commit status and comment); provider failures are retried. */
export const hostVerdict = inngest.createFunction(
  {
    id: "host-pr-verdict",
    name: "Post a verdict to the pull request",
    triggers: [{ event: HOST_VERDICT_EVENT }],
    retries: 4,
  },
  async ({ event, step }) => step.run("post-verdict", () => publishHostVerdict(String(event.data.changeId))),
);
