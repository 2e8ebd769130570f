import { z } from "zod";
import { authedProcedure, publicProcedure, router, userProcedure, type Context } from "@/server/trpc";
import { booleanish, nameSlug, pathSegment, text } from "@/server/http";
import { MERGE_BATCH_MAX, TEXT_BODY_MAX } from "@/server/limits";
import { promoteChange } from "./host-pr";
import { projectParams } from "@/server/projects";
import { mergeBatch } from "./merge/batch";
import { revertChange } from "./merge/revert";
import { mergeChange } from "./merge/service";
import { changeIdParam, changeListFilter, changeOutput, costOutput, evalOutput, evalRunOutput } from "./schemas";
import { createChange, getChange, listChanges, reevaluateChange, rejectChange } from "./service";

const tags = ["changes"];
const BY_PATH = "/projects/{namespace}/{slug}/changes";
// `{name}` may also be the project's id (one segment). GET by id shares its pattern with
// GET /projects/{namespace}/{slug}; server/api/shadowed-routes.ts tells them apart.
const BY_ID = "/projects/{projectId}/changes";
const listOutput = () => z.object({ project: z.string(), changes: z.array(changeOutput()) });

const createOutput = () => z.object({ change: changeOutput(), eval: evalOutput(), evalRuns: z.array(evalRunOutput()) });
const batchInput = () => ({ changeIds: z.array(z.string().min(1).max(100)).min(1).max(MERGE_BATCH_MAX), force: booleanish().default(false) });
const batchOutput = () =>
  z.object({
    merged: z.array(z.string()),
    conflicted: z.array(z.string()),
    skipped: z.array(z.object({ changeId: z.string(), reason: z.string() })),
    commit: z.string(),
    timings: z.object({ resolveMs: z.number(), batchMs: z.number(), persistMs: z.number(), serverMs: z.number() }),
  });

/** merge takes `force` and `strategy` from the query string (the spec) or the JSON body. */
const mergeOptions = z.object({
  force: booleanish().default(false),
  strategy: z.enum(["merge", "squash"], { message: "strategy must be merge or squash" }).default("merge"),
});

function mergeOptionsOf(ctx: Context, body: { force?: unknown; strategy?: unknown }) {
  const query = Object.fromEntries(new URL(ctx.req.url).searchParams);
  return mergeOptions.parse({ ...body, ...query });
}

export const changesRouter = router({
  create: authedProcedure
    .meta({ openapi: { method: "POST", path: BY_PATH, tags, summary: "Propose a workspace as a change; evaluated synchronously" }, successStatus: 201 })
    .input(z.object({ ...projectParams(), workspace: nameSlug() }))
    .output(createOutput())
    .mutation(({ input, ctx }) => createChange(ctx.identity, { namespace: input.namespace, slug: input.slug }, input.workspace)),

  createByProjectId: authedProcedure
    .meta({ openapi: { method: "POST", path: BY_ID, tags, summary: "Propose a change (project addressed by id)" }, successStatus: 201 })
    .input(z.object({ projectId: pathSegment(), workspace: nameSlug() }))
    .output(createOutput())
    .mutation(({ input, ctx }) => createChange(ctx.identity, { id: input.projectId }, input.workspace)),

  list: publicProcedure
    .meta({ openapi: { method: "GET", path: BY_PATH, tags, summary: "A project's changes, newest first" } })
    .input(z.object({ ...projectParams(), ...changeListFilter() }))
    .output(listOutput())
    .query(({ input, ctx }) => listChanges(ctx.identity, { namespace: input.namespace, slug: input.slug }, { status: input.status, limit: input.limit })),

  listByProjectId: publicProcedure
    .meta({ openapi: { method: "GET", path: BY_ID, tags, summary: "A project's changes, newest first (project addressed by id)" } })
    .input(z.object({ projectId: pathSegment(), ...changeListFilter() }))
    .output(listOutput())
    .query(({ input, ctx }) => listChanges(ctx.identity, { id: input.projectId }, { status: input.status, limit: input.limit })),

  mergeBatch: userProcedure
    .meta({ openapi: { method: "POST", path: `${BY_PATH}/merge-batch`, tags, summary: "Gate and merge up to 80 changes with one push" } })
    .input(z.object({ ...projectParams(), ...batchInput() }))
    .output(batchOutput())
    .mutation(({ input, ctx }) => mergeBatch(ctx.identity, { namespace: input.namespace, slug: input.slug }, input)),

  mergeBatchByProjectId: userProcedure
    .meta({ openapi: { method: "POST", path: `${BY_ID}/merge-batch`, tags, summary: "merge-batch (project addressed by id)" } })
    .input(z.object({ projectId: pathSegment(), ...batchInput() }))
    .output(batchOutput())
    .mutation(({ input, ctx }) => mergeBatch(ctx.identity, { id: input.projectId }, input)),

  get: publicProcedure
    .meta({ openapi: { method: "GET", path: "/changes/{id}", tags, summary: "A change with its latest eval runs and costs" } })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ change: changeOutput(), eval: evalOutput().nullable(), evalRuns: z.array(evalRunOutput()), costs: z.array(costOutput()) }))
    .query(({ input, ctx }) => getChange(ctx.identity, input.id)),

  evaluate: userProcedure
    .meta({ openapi: { method: "POST", path: "/changes/{id}/evaluate", tags, summary: "Re-evaluate a change (users with write access)" } })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ changeId: z.string(), eval: evalOutput(), evalRuns: z.array(evalRunOutput()) }))
    .mutation(({ input, ctx }) => reevaluateChange(ctx.identity, input.id)),

  merge: userProcedure
    .meta({ openapi: { method: "POST", path: "/changes/{id}/merge", tags, summary: "Merge a change into the default branch (query force, strategy)" } })
    .input(z.object({ id: changeIdParam(), force: z.unknown().optional(), strategy: z.unknown().optional() }))
    .output(
      z.object({
        merged: z.boolean(),
        changeId: z.string(),
        project: z.string(),
        workspace: z.string().nullable(),
        commit: z.string(),
        strategy: z.enum(["merge", "squash"]),
        postMerge: z.object({ status: z.enum(["passed", "failed"]), message: z.string().optional() }),
      }),
    )
    .mutation(({ input, ctx }) => mergeChange(ctx.identity, input.id, mergeOptionsOf(ctx, input))),

  revert: userProcedure
    .meta({ openapi: { method: "POST", path: "/changes/{id}/revert", tags, summary: "Revert a merged change with one commit on the default branch" } })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ reverted: z.boolean(), changeId: z.string(), commit: z.string() }))
    .mutation(({ input, ctx }) => revertChange(ctx.identity, input.id)),
  reject: userProcedure
    .meta({ openapi: { method: "POST", path: "/changes/{id}/reject", tags, summary: "Reject a change (any state but merged)" } })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ rejected: z.boolean(), changeId: z.string() }))
    .mutation(({ input, ctx }) => rejectChange(ctx.identity, input.id)),

  promote: userProcedure
    .meta({ openapi: { method: "POST", path: "/changes/{id}/host-pr", tags, summary: "Promote an accepted change to a pull request on the hosting provider" } })
    // Strict: a `base` is refused (the base is always the project's recorded default branch).
    .input(z.strictObject({ id: changeIdParam(), title: text().min(1).max(256).optional(), body: text().max(TEXT_BODY_MAX).optional(), draft: booleanish().default(true) }))
    .output(z.object({ changeId: z.string(), host: z.object({ owner: z.string(), repo: z.string(), branch: z.string(), pullRequestNumber: z.number().int(), pullRequestUrl: z.string() }) }))
    .mutation(({ input, ctx }) => promoteChange(ctx.identity, input.id, { title: input.title, body: input.body, draft: input.draft })),
});

// The sub-areas' routers, mounted by server/api/router.ts beside this one.
export { reviewsRouter } from "./reviews/router";
export { commentsRouter } from "./comments/router";
export { conflictsRouter } from "./conflicts/router";
