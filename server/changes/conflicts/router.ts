import { z } from "zod";
import { authedProcedure, router } from "@/server/trpc";
import { invalid } from "@/server/errors";
import { resolveConflict } from "./service";

const resolutionBody = z.object({
  strategy: z.enum(["accept-project", "accept-workspace", "manual"]),
  resolutions: z
    .array(z.object({ file: z.string().min(1).max(4096), content: z.string() }))
    .max(10_000)
    .optional(),
});

/** The spec's INVALID_INPUT for a malformed body or unknown strategy (not the generic VALIDATION_ERROR). */
function parseResolution(input: unknown) {
  const parsed = resolutionBody.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(`Invalid resolution: ${issue.path.join(".") || "body"}: ${issue.message}`, "INVALID_INPUT");
  }
  if (parsed.data.strategy === "manual" && !parsed.data.resolutions?.length)
    throw invalid("The manual strategy needs resolutions", "INVALID_INPUT");
  return { strategy: parsed.data.strategy, resolutions: parsed.data.resolutions ?? [] };
}

export const conflictsRouter = router({
  resolve: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/projects/conflicts/{id}/resolve",
        tags: ["changes"],
        summary: "Resolve a merge conflict and land the change (writers)",
      },
      errors: {
        403: ["PROTECTION_BLOCKED"],
        409: ["STALE_PROJECT"],
        410: [],
        422: ["INVALID_PATH", "SECRET_DETECTED", "EVALUATION_FAILED", "INVALID_INPUT"],
        500: ["GIT_ERROR"],
        502: ["EVAL_PREP_FAILED"],
      },
    })
    .input(
      z.object({
        id: z.string().min(1).max(100),
        strategy: z.unknown().optional(),
        resolutions: z.unknown().optional(),
      }),
    )
    .output(
      z.object({ status: z.literal("resolved"), commitSha: z.string(), conflictId: z.string(), changeId: z.string() }),
    )
    .mutation(({ input, ctx }) =>
      resolveConflict(
        ctx.identity,
        input.id,
        parseResolution({ strategy: input.strategy, resolutions: input.resolutions }),
      ),
    ),
});
