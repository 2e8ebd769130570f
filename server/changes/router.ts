import { z } from "zod";
import type { Identity } from "@/server/auth";
import { authedProcedure, publicProcedure, router, setPageHeaders, userProcedure, type Context } from "@/server/trpc";
import { booleanish, boundedInt, listLimit, nameSlug, pathSegment, text } from "@/server/http";
import { DIFF_EXPAND_CONTEXT_MAX, DIFF_EXPAND_FILES_MAX, MERGE_BATCH_MAX, TEXT_BODY_MAX } from "@/server/limits";
import { promoteChange } from "./host-pr";
import { projectNumber, projectParams } from "@/server/projects";
import { mergeBatch } from "./merge/batch";
import { revertChange } from "./merge/revert";
import { mergeBlockers, mergeChange } from "./merge/service";
import {
  changeIdParam,
  changeListFilter,
  changeOutput,
  costOutput,
  evalOutput,
  evalRunOutput,
  mergeStrategy,
} from "./schemas";
import { createChange, getChange, getChangeByNumber, reevaluateChange, rejectChange } from "./service";
import { cancelEvalRun, evalRunLogText, listEvalRuns } from "./runs/service";
import { EVAL_RUN_STATUSES } from "./schemas";
import { ChangeStatus } from "./views";
import { pageOfChanges } from "./list-page";
import { changeDiffPage } from "./diff-page";
import { queueProcedures } from "./queue/procedures";
import { viewedProcedures } from "./viewed/procedures";
import { changeDiff, changeDiffVersion } from "./change-diff";
import { diffContextInput, diffFileOutput, diffPageInput, diffTotalsOutput } from "@/server/code";

/** What a change read answers, by id or by number. */
const changeReadOutput = () =>
  z.object({
    change: changeOutput(),
    eval: evalOutput().nullable(),
    evalRuns: z.array(evalRunOutput()),
    costs: z.array(costOutput()),
    queue: z
      .object({
        position: z.number().int(),
        state: z.enum(["waiting", "testing", "merging"]),
        enqueuedAt: z.string(),
      })
      .nullable(),
  });

const tags = ["changes"];
/** The ETag of a change's diff: the change and its two commits (with the URL, so the page and context). */
const diffVersion = (identity: Identity, input: { id: string }) => changeDiffVersion(identity, input.id);
const diffFilesInput = () =>
  z.object({
    id: changeIdParam(),
    ...diffPageInput(),
    context: diffContextInput(),
    format: z.enum(["json", "patch"]).optional(),
  });

/** GET /changes/{id}/diff as JSON: a page of the diff's files with the page's headers (REST calls it directly: `meta.direct`). */
async function diffFilesPage(ctx: Context, input: z.output<ReturnType<typeof diffFilesInput>>) {
  const page = { limit: input.limit, offset: input.offset };
  const diff = await changeDiff(ctx.identity, input.id, { ...page, context: input.context }, ctx.setVersion);
  setPageHeaders(ctx, { total: diff.totals.files, ...page });
  return diff;
}

const BY_PATH = "/projects/{namespace}/{slug}/changes";
// `{name}` may also be the project's id (one segment). GET by id shares its pattern with
// GET /projects/{namespace}/{slug}; server/api/shadowed-routes.ts tells them apart.
const BY_ID = "/projects/{projectId}/changes";
const listOutput = () => z.object({ project: z.string(), changes: z.array(changeOutput()) });

const createOutput = () => z.object({ change: changeOutput(), eval: evalOutput(), evalRuns: z.array(evalRunOutput()) });
const batchInput = () => ({
  changeIds: z.array(z.string().min(1).max(100)).min(1).max(MERGE_BATCH_MAX),
  force: booleanish().default(false),
});
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
  strategy: mergeStrategy().default("merge"),
});

/** `?wait=<0..300>` (or `wait` in the body): how long the request waits for its background runs. */
const waitInput = () => z.coerce.number().int().min(0).max(300).optional();
function waitOf(ctx: Context, body: number | undefined): number | undefined {
  const query = new URL(ctx.req.url).searchParams.get("wait");
  return query === null ? body : z.object({ wait: waitInput() }).parse({ wait: query }).wait;
}

function mergeOptionsOf(ctx: Context, body: { force?: unknown; strategy?: unknown }) {
  const query = Object.fromEntries(new URL(ctx.req.url).searchParams);
  return mergeOptions.parse({ ...body, ...query });
}

export const changesRouter = router({
  ...queueProcedures,
  ...viewedProcedures,

  create: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BY_PATH,
        tags,
        summary: "Propose a workspace as a change; evaluated (background evaluators waited for up to ?wait seconds)",
      },
      query: ["wait"],
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"], 502: ["EVAL_PREP_FAILED"] },
      workspaceKey: true,
    })
    .input(z.object({ ...projectParams(), workspace: nameSlug(), wait: waitInput() }))
    .output(createOutput())
    .mutation(({ input, ctx }) =>
      createChange(ctx.identity, { namespace: input.namespace, slug: input.slug }, input.workspace, {
        wait: waitOf(ctx, input.wait),
      }),
    ),

  createByProjectId: authedProcedure
    .meta({
      openapi: { method: "POST", path: BY_ID, tags, summary: "Propose a change (project addressed by id)" },
      query: ["wait"],
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"], 502: ["EVAL_PREP_FAILED"] },
      workspaceKey: true,
    })
    .input(z.object({ projectId: pathSegment(), workspace: nameSlug(), wait: waitInput() }))
    .output(createOutput())
    .mutation(({ input, ctx }) =>
      createChange(ctx.identity, { id: input.projectId }, input.workspace, { wait: waitOf(ctx, input.wait) }),
    ),

  list: publicProcedure
    .meta({ openapi: { method: "GET", path: BY_PATH, tags, summary: "A project's changes, newest first" }, list: true })
    .input(z.object({ ...projectParams(), ...changeListFilter() }))
    .output(listOutput())
    .query(({ input, ctx }) => pageOfChanges(ctx, { namespace: input.namespace, slug: input.slug }, input)),

  listByProjectId: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: BY_ID,
        tags,
        summary: "A project's changes, newest first (project addressed by id)",
      },
      list: true,
    })
    .input(z.object({ projectId: pathSegment(), ...changeListFilter() }))
    .output(listOutput())
    .query(({ input, ctx }) => pageOfChanges(ctx, { id: input.projectId }, input)),

  mergeBatch: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BY_PATH}/merge-batch`,
        tags,
        summary: "Gate and merge up to 80 changes with one push",
      },
      errors: { 403: ["PROTECTION_BLOCKED"], 409: ["TARGET_DELETING"] },
    })
    .input(z.object({ ...projectParams(), ...batchInput() }))
    .output(batchOutput())
    .mutation(({ input, ctx }) => mergeBatch(ctx.identity, { namespace: input.namespace, slug: input.slug }, input)),

  mergeBatchByProjectId: userProcedure
    .meta({
      openapi: { method: "POST", path: `${BY_ID}/merge-batch`, tags, summary: "merge-batch (project addressed by id)" },
      errors: { 403: ["PROTECTION_BLOCKED"], 409: ["TARGET_DELETING"] },
    })
    .input(z.object({ projectId: pathSegment(), ...batchInput() }))
    .output(batchOutput())
    .mutation(({ input, ctx }) => mergeBatch(ctx.identity, { id: input.projectId }, input)),

  get: publicProcedure
    .meta({
      openapi: { method: "GET", path: "/changes/{id}", tags, summary: "A change with its latest eval runs and costs" },
      etag: true,
    })
    .input(z.object({ id: changeIdParam() }))
    .output(changeReadOutput())
    .query(({ input, ctx }) => getChange(ctx.identity, input.id)),

  getByNumber: publicProcedure
    .meta({
      openapi: { method: "GET", path: `${BY_PATH}/{number}`, tags, summary: "A change by its number in the project" },
      etag: true,
    })
    .input(z.object({ ...projectParams(), number: projectNumber() }))
    .output(changeReadOutput())
    .query(({ input, ctx }) => getChangeByNumber(ctx.identity, input, input.number)),

  // No REST route: the change page reads it in-process (and typed callers through /api/trpc).
  diff: publicProcedure
    .input(
      z.object({
        id: changeIdParam(),
        page: boundedInt(1, 100_000, 1),
        // Files of the page shown with more context (the page's "expand" links): index in the diff, lines.
        expand: z
          .array(
            z.object({ file: z.number().int().min(0), context: z.number().int().min(0).max(DIFF_EXPAND_CONTEXT_MAX) }),
          )
          .max(DIFF_EXPAND_FILES_MAX)
          .default([]),
      }),
    )
    .output(
      z.object({
        changeId: z.string(),
        page: z.number(),
        pageSize: z.number(),
        totalFiles: z.number(),
        files: z.array(
          z.object({
            path: z.string(),
            previousPath: z.string().nullable(),
            status: z.enum(["added", "modified", "deleted", "renamed"]),
            binary: z.boolean(),
            additions: z.number(),
            deletions: z.number(),
            truncated: z.boolean(),
            hunks: z.array(
              z.object({
                header: z.string(),
                lines: z.array(
                  z.object({
                    kind: z.enum(["context", "add", "del"]),
                    oldLine: z.number().nullable(),
                    newLine: z.number().nullable(),
                    text: z.string(),
                  }),
                ),
              }),
            ),
          }),
        ),
      }),
    )
    .query(({ input, ctx }) => changeDiffPage(ctx.identity, input.id, input.page, input.expand)),

  // Accept: text/x-diff (or ?format=patch) is answered before routing, by the plain route
  // app/api/changes/[id]/diff (server/api/code-endpoints.ts).
  diffFiles: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/changes/{id}/diff",
        tags,
        summary:
          "A change's diff as git computes it (renames, binary files), a page of files; Accept: text/x-diff or ?format=patch for the whole unified diff",
      },
      etag: diffVersion,
      list: true,
      direct: diffFilesPage,
    })
    .input(diffFilesInput())
    .output(
      z.object({
        changeId: z.string(),
        baseSha: z.string(),
        tipSha: z.string(),
        totals: diffTotalsOutput(),
        files: z.array(diffFileOutput()),
      }),
    )
    .query(({ input, ctx }) => diffFilesPage(ctx, input)),

  evaluate: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/evaluate",
        tags,
        summary: "Re-evaluate a change (users with write access; ?wait as on create)",
      },
      query: ["wait"],
      errors: { 409: ["CONFLICT", "TARGET_DELETING"], 502: ["EVAL_PREP_FAILED"] },
    })
    .input(z.object({ id: changeIdParam(), wait: waitInput() }))
    .output(z.object({ changeId: z.string(), eval: evalOutput(), evalRuns: z.array(evalRunOutput()) }))
    .mutation(({ input, ctx }) => reevaluateChange(ctx.identity, input.id, { wait: waitOf(ctx, input.wait) })),

  cancelEvaluation: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/evaluations/{runId}/cancel",
        tags,
        summary: "Cancel a queued or running evaluation run (write access)",
      },
      errors: { 409: ["CONFLICT"] },
    })
    .input(z.object({ id: changeIdParam(), runId: changeIdParam() }))
    .output(evalRunOutput())
    .mutation(({ input, ctx }) => cancelEvalRun(ctx.identity, input.id, input.runId)),

  // No REST route (GET .../log answers text/plain and SSE): MCP and the change page read it here.
  evaluationLog: publicProcedure
    .input(
      z.object({
        id: changeIdParam(),
        runId: changeIdParam(),
        tail: z.coerce.number().int().min(0).max(100_000).optional(),
      }),
    )
    .output(
      z.object({ runId: z.string(), status: z.enum(EVAL_RUN_STATUSES), logBytes: z.number().int(), log: z.string() }),
    )
    .query(({ input, ctx }) => evalRunLogText(ctx.identity, input.id, input.runId, input.tail)),

  evaluations: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/projects/{namespace}/{slug}/evaluations",
        tags,
        summary: "A project's queued and running evaluation runs, with their change and queue position",
      },
    })
    .input(
      z.object({
        ...projectParams(),
        status: z.enum(["queued", "running"]).optional(),
        limit: listLimit(),
      }),
    )
    .output(
      z.object({
        evaluations: z.array(
          z.object({
            run: evalRunOutput(),
            change: z.object({ id: z.string(), title: z.string().nullable(), status: z.enum(ChangeStatus) }),
            /** 1-based place among every queued run of the instance's database; null once running. */
            position: z.number().int().nullable(),
          }),
        ),
      }),
    )
    .query(({ input, ctx }) => listEvalRuns(ctx.identity, { namespace: input.namespace, slug: input.slug }, input)),

  merge: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/merge",
        tags,
        summary: "Merge a change into the default branch (query force, strategy)",
      },
      query: ["force", "strategy"],
      errors: {
        403: ["PROTECTION_BLOCKED"],
        409: ["STALE_BASE", "STALE_WORKSPACE", "WORKSPACE_UNVERIFIABLE", "MERGE_CONFLICT", "TARGET_DELETING"],
      },
    })
    .input(z.object({ id: changeIdParam(), force: booleanish().optional(), strategy: mergeStrategy().optional() }))
    .output(
      z.object({
        merged: z.boolean(),
        changeId: z.string(),
        project: z.string(),
        workspace: z.string().nullable(),
        commit: z.string(),
        strategy: mergeStrategy(),
        postMerge: z.object({ status: z.enum(["passed", "failed"]), message: z.string().optional() }),
      }),
    )
    .mutation(({ input, ctx }) => mergeChange(ctx.identity, input.id, mergeOptionsOf(ctx, input))),

  // No REST route: the change page's merge box (typed callers through /api/trpc); the merge answers the same reasons.
  mergeBlockers: publicProcedure
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ blockers: z.array(z.string()) }))
    .query(({ input, ctx }) => mergeBlockers(ctx.identity, input.id)),

  revert: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/revert",
        tags,
        summary: "Revert a merged change with one commit on the default branch",
      },
      errors: { 403: ["PROTECTION_BLOCKED"], 409: ["MERGE_CONFLICT", "CONFLICT"] },
    })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ reverted: z.boolean(), changeId: z.string(), commit: z.string() }))
    .mutation(({ input, ctx }) => revertChange(ctx.identity, input.id)),
  reject: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/reject",
        tags,
        summary: "Reject a change (any state but merged)",
      },
      errors: { 409: ["CONFLICT"] },
    })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ rejected: z.boolean(), changeId: z.string() }))
    .mutation(({ input, ctx }) => rejectChange(ctx.identity, input.id)),

  promote: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/changes/{id}/host-pr",
        tags,
        summary: "Promote an accepted change to a pull request on the hosting provider",
      },
      errors: { 401: ["AUTH_ERROR"], 403: [], 409: ["IMPORT_IN_PROGRESS"], 502: ["GITHUB_ERROR"] },
    })
    // Strict: a `base` is refused (the base is always the project's recorded default branch).
    .input(
      z.strictObject({
        id: changeIdParam(),
        title: text().min(1).max(256).optional(),
        body: text().max(TEXT_BODY_MAX).optional(),
        draft: booleanish().default(true),
      }),
    )
    .output(
      z.object({
        changeId: z.string(),
        host: z.object({
          owner: z.string(),
          repo: z.string(),
          branch: z.string(),
          pullRequestNumber: z.number().int(),
          pullRequestUrl: z.string(),
        }),
      }),
    )
    .mutation(({ input, ctx }) =>
      promoteChange(ctx.identity, input.id, { title: input.title, body: input.body, draft: input.draft }),
    ),
});

// The sub-areas' routers, mounted by server/api/router.ts beside this one.
export { reviewsRouter } from "./reviews/router";
export { commentsRouter } from "./comments/router";
export { conflictsRouter } from "./conflicts/router";
