import { z } from "zod";
import { publicProcedure, userProcedure, FORM_OR_JSON, type Context } from "@/server/trpc";
import { boundedInt } from "@/server/http";
import { QUEUE_LIST_LIMIT_DEFAULT, QUEUE_LIST_LIMIT_MAX } from "@/server/limits";
import { projectParams } from "@/server/projects";
import { changeIdParam, mergeStrategy } from "../schemas";
import { projectQueue, queueChange, unqueueChange } from "./service";

const tags = ["changes"];
const queueState = () => z.enum(["waiting", "testing", "merging"]);
const queuedOutput = () =>
  z.object({ queued: z.literal(true), changeId: z.string(), position: z.number().int(), state: queueState() });
const unqueuedOutput = () => z.object({ queued: z.literal(false), changeId: z.string() });

/** Form callers go back to the change page. */
function answer<T>(ctx: Context, result: { page: string; answer: T }): T {
  ctx.response.redirect = result.page;
  return result.answer;
}

/** The merge queue's routes (docs/contracts.md#merge-queue), mounted in the changes router. */
export const queueProcedures = {
  queue: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/queue",
        tags,
        summary: "Queue a change for landing (merge when ready); 200 when already queued",
        contentTypes: FORM_OR_JSON,
      },
      successStatus: 202,
      alsoSuccess: [200],
      errors: { 409: ["CHANGE_NOT_MERGEABLE", "TARGET_DELETING"] },
    })
    .input(z.object({ id: changeIdParam(), strategy: mergeStrategy().default("merge") }))
    .output(queuedOutput())
    .mutation(async ({ input, ctx }) => {
      const result = await queueChange(ctx.identity, input.id, { strategy: input.strategy });
      if (!result.added) ctx.response.status = 200;
      return answer(ctx, result);
    }),

  unqueue: userProcedure
    .meta({
      openapi: { method: "DELETE", path: "/changes/{id}/queue", tags, summary: "Take a change out of the merge queue" },
    })
    .input(z.object({ id: changeIdParam() }))
    .output(unqueuedOutput())
    .mutation(async ({ input, ctx }) => answer(ctx, await unqueueChange(ctx.identity, input.id))),

  unqueueForm: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/queue/delete",
        tags,
        summary: "Take a change out of the merge queue (form alias of DELETE)",
        contentTypes: FORM_OR_JSON,
      },
    })
    .input(z.object({ id: changeIdParam() }))
    .output(unqueuedOutput())
    .mutation(async ({ input, ctx }) => answer(ctx, await unqueueChange(ctx.identity, input.id))),

  projectQueue: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/projects/{namespace}/{slug}/queue",
        tags,
        summary: "A project's merge queue in landing order",
      },
    })
    .input(z.object({ ...projectParams(), limit: boundedInt(1, QUEUE_LIST_LIMIT_MAX, QUEUE_LIST_LIMIT_DEFAULT) }))
    .output(
      z.object({
        entries: z.array(
          z.object({
            changeId: z.string(),
            position: z.number().int(),
            state: queueState(),
            enqueuedAt: z.string(),
            enqueuedBy: z.string().nullable(),
            strategy: mergeStrategy(),
          }),
        ),
        mergedLastHour: z.number().int(),
      }),
    )
    .query(({ input, ctx }) =>
      projectQueue(ctx.identity, { namespace: input.namespace, slug: input.slug }, input.limit),
    ),
};
