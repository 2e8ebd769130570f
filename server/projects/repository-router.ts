import { z } from "zod";
import { authedProcedure, publicProcedure, router, setCursorHeaders } from "@/server/trpc";
import type { Identity } from "@/server/auth";
import { boundedInt, listLimit, pathSegment, namedSchema, text } from "@/server/http";
import { COMMIT_LOG_DEPTH_DEFAULT } from "@/server/limits";
import { projectParams } from "./schemas";
import { createProjectBranch, deleteProjectBranch } from "./branches";
import {
  projectBranches,
  projectContent,
  projectDirectory,
  projectFiles,
  projectLanguages,
  projectLog,
  projectProvenance,
  projectReadVersion,
} from "./reads";

const tags = ["repository"];
const PROJECT = "/projects/{namespace}/{slug}";
const LOG_DEPTH_MAX = 1000;

const envelope = () => ({ namespace: z.string(), slug: z.string(), path: z.string() });
const refQuery = () => text().min(1).optional();
const branchOutput = namedSchema("Branch", () => z.object({ name: z.string(), oid: z.string() }));
const contentOutput = () =>
  z.object({
    ...envelope(),
    project: z.string(),
    ref: z.string(),
    commit: z.string(),
    kind: z.enum(["content", "binary", "too_large"]),
    value: z.string().optional(),
  });
const person = () => z.object({ name: z.string(), email: z.string(), date: z.string() });
const logInput = () =>
  z.object({ ...projectParams(), depth: boundedInt(1, LOG_DEPTH_MAX, COMMIT_LOG_DEPTH_DEFAULT), ref: refQuery() });
const logOutput = () =>
  z.object({
    ...envelope(),
    ref: z.string(),
    commit: z.string(),
    log: z.array(
      z.object({
        sha: z.string(),
        message: z.string(),
        parents: z.array(z.string()),
        author: person(),
        committer: person(),
      }),
    ),
  });
/** The ETag of a read at a branch: the project, the branch and its commit. */
const branchVersion = (identity: Identity, input: { namespace: string; slug: string; ref?: string }) =>
  projectReadVersion(identity, input, input.ref);

export const repositoryRouter = router({
  files: publicProcedure
    .meta({
      openapi: { method: "GET", path: `${PROJECT}/files`, tags, summary: "Every file path at a branch" },
      etag: branchVersion,
      errors: { 409: ["AMBIGUOUS_REF"] },
    })
    .input(z.object({ ...projectParams(), ref: refQuery() }))
    .output(z.object({ ...envelope(), ref: z.string(), commit: z.string(), files: z.array(z.string()) }))
    .query(({ input, ctx }) => projectFiles(ctx.identity, input, input.ref, ctx.setVersion)),

  languages: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/languages`,
        tags,
        summary: "Bytes per language of the tree at a branch (by file extension; vendored files left out)",
      },
      etag: branchVersion,
      errors: { 409: ["AMBIGUOUS_REF"] },
    })
    .input(z.object({ ...projectParams(), ref: refQuery() }))
    .output(
      z.object({
        ...envelope(),
        ref: z.string(),
        commit: z.string(),
        tree: z.string(),
        languages: z.array(
          z.object({ name: z.string(), color: z.string(), bytes: z.number().int(), percent: z.number() }),
        ),
      }),
    )
    .query(({ input, ctx }) => projectLanguages(ctx.identity, input, input.ref, ctx.setVersion)),

  // No REST route: the tree pages read it in-process (and typed callers through /api/trpc); `ref` may be a full commit id.
  directory: publicProcedure
    .input(z.object({ ...projectParams(), path: text(), page: boundedInt(1, 100_000, 1), ref: refQuery() }))
    .output(
      z.object({
        ref: z.string(),
        commit: z.string(),
        total: z.number().int(),
        pageSize: z.number().int(),
        entries: z.array(
          z.object({
            name: z.string(),
            kind: z.enum(["dir", "file", "symlink", "submodule"]),
            lastCommit: z.object({ oid: z.string(), summary: z.string(), time: z.string() }).nullable(),
          }),
        ),
        readme: z.string().nullable(),
      }),
    )
    .query(({ input, ctx }) => projectDirectory(ctx.identity, input, input.path, input.page, input.ref)),

  content: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/content`,
        tags,
        summary: "One file: text content, or kind binary / too_large without value",
      },
      etag: branchVersion,
      errors: { 409: ["AMBIGUOUS_REF"] },
    })
    .input(z.object({ ...projectParams(), path: text().min(1), ref: refQuery() }))
    .output(contentOutput())
    .query(({ input, ctx }) => projectContent(ctx.identity, input, input.path, input.ref, ctx.setVersion)),

  // No REST route (the spec's content read takes branches only): the file pages, whose `ref` may
  // also be a full commit id (GitHub's permalinks), as the tree pages' directory read.
  blob: publicProcedure
    .input(z.object({ ...projectParams(), path: text().min(1), ref: refQuery() }))
    .output(contentOutput())
    .query(({ input, ctx }) => projectContent(ctx.identity, input, input.path, input.ref, undefined, true)),

  log: publicProcedure
    .meta({
      openapi: { method: "GET", path: `${PROJECT}/log`, tags, summary: "Commit log of a branch, newest first" },
      etag: branchVersion,
      errors: { 409: ["AMBIGUOUS_REF"] },
    })
    .input(logInput())
    .output(logOutput())
    .query(({ input, ctx }) => projectLog(ctx.identity, input, input.depth, input.ref, ctx.setVersion)),

  // No REST route (the spec's log takes branches only): the commit pages' History, whose `ref` may be a full commit id.
  history: publicProcedure
    .input(logInput())
    .output(logOutput())
    .query(({ input, ctx }) => projectLog(ctx.identity, input, input.depth, input.ref, undefined, true)),

  provenance: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/provenance`,
        tags,
        summary: "Which agent or model produced each merged commit, newest first (before a record id: Link rel=next)",
      },
      errors: { 404: [] },
      list: "cursor",
    })
    .input(z.object({ ...projectParams(), before: text().max(100).optional(), limit: listLimit() }))
    .output(
      z.object({
        ...envelope(),
        records: z.array(
          z.object({
            id: z.string(),
            commitSha: z.string(),
            changeId: z.string().nullable(),
            authorId: z.string().nullable(),
            agentId: z.string().nullable(),
            model: z.string().nullable(),
            createdAt: z.string(),
          }),
        ),
      }),
    )
    .query(async ({ input, ctx }) => {
      const provenance = await projectProvenance(ctx.identity, input, input);
      setCursorHeaders(ctx, {
        limit: input.limit,
        count: provenance.records.length,
        nextBefore: provenance.records.at(-1)?.id,
      });
      return provenance;
    }),

  branches: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/branches`,
        tags,
        summary: "Branch list envelope (capped; the default branch is always kept)",
      },
      etag: true,
    })
    .input(z.object(projectParams()))
    .output(
      z.object({
        defaultBranch: z.string(),
        branches: z.array(branchOutput()),
        truncated: z.boolean(),
        totalBranchCount: z.number().int(),
      }),
    )
    .query(({ input, ctx }) => projectBranches(ctx.identity, input)),

  createBranch: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PROJECT}/branches`,
        tags,
        summary: "Create a branch at a branch or full commit id (writers)",
      },
      successStatus: 201,
      errors: { 409: ["BRANCH_EXISTS", "BRANCH_NAME_CONFLICT", "NO_DEFAULT_BRANCH", "TARGET_DELETING"] },
    })
    .input(z.object({ ...projectParams(), name: text().min(1), startPoint: text().min(1).optional() }))
    .output(branchOutput())
    .mutation(({ input, ctx }) =>
      createProjectBranch(ctx.identity, input, { name: input.name, startPoint: input.startPoint }),
    ),

  // Hierarchical names arrive as one %2F-joined segment (see the rewrite table in server/api/rest.ts).
  deleteBranch: authedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: `${PROJECT}/branches/{name}`,
        tags,
        summary: "Delete a branch (writers; never the default branch)",
      },
      errors: { 409: ["DEFAULT_BRANCH_PROTECTED", "TARGET_DELETING"] },
    })
    .input(z.object({ ...projectParams(), name: pathSegment() }))
    .output(z.object({ deleted: z.boolean(), name: z.string() }))
    .mutation(({ input, ctx }) => deleteProjectBranch(ctx.identity, input, input.name)),
});
