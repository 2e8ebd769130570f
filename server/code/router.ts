import { z } from "zod";
import { authedProcedure, publicProcedure, router, setPageHeaders } from "@/server/trpc";
import { boundedInt, listLimit, listOffset, pathSegment, text } from "@/server/http";
import { SEARCH_MATCHES_DEFAULT, SEARCH_MATCHES_MAX, SEARCH_QUERY_MAX } from "@/server/limits";
import { projectParams } from "@/server/projects";
import { blameFile } from "./blame";
import { branchDetail } from "./branch";
import { commitDetail } from "./commit";
import { compareRefs } from "./compare";
import { archiveLink, fileContents } from "./contents";
import { ARCHIVE_FORMATS } from "./archive";
import { commitLogEntryOutput, diffFileOutput, diffPageInput, diffTotalsOutput, person, tagOutput } from "./schemas";
import { searchCode } from "./search";
import { createTag, deleteTag, listTags } from "./tags";

const tags = ["code"];
const PROJECT = "/projects/{namespace}/{slug}";
const refName = () => text().min(1).max(1000);
/** A query-string flag (GET inputs must be strings, numbers or booleans for trpc-to-openapi: booleanish() is a union). */
const flag = () => z.enum(["true", "false"]).default("false");
const ambiguous = { 409: ["AMBIGUOUS_REF" as const] };

export const codeRouter = router({
  commit: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/commits/{sha}`,
        tags,
        summary: "One commit (a full id or a branch) and its diff against its first parent",
      },
      etag: true,
      list: true,
      errors: ambiguous,
    })
    .input(z.object({ ...projectParams(), sha: pathSegment(), ...diffPageInput() }))
    .output(
      z.object({
        commit: commitLogEntryOutput().extend({
          provenance: z
            .object({ changeId: z.string().nullable(), agentId: z.string().nullable(), model: z.string().nullable() })
            .optional(),
        }),
        totals: diffTotalsOutput(),
        files: z.array(diffFileOutput()),
      }),
    )
    .query(async ({ input, ctx }) => {
      const page = { limit: input.limit, offset: input.offset };
      const detail = await commitDetail(ctx.identity, input, input.sha, page);
      setPageHeaders(ctx, { total: detail.totals.files, ...page });
      return detail;
    }),

  compare: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/compare`,
        tags,
        summary: "Head's commits that base lacks and the diff from their merge base to head",
      },
      etag: true,
      list: true,
      errors: ambiguous,
    })
    .input(z.object({ ...projectParams(), base: refName(), head: refName(), ...diffPageInput() }))
    .output(
      z.object({
        base: z.string(),
        head: z.string(),
        mergeBase: z.string(),
        aheadBy: z.number().int(),
        behindBy: z.number().int(),
        commits: z.array(commitLogEntryOutput()),
        totals: diffTotalsOutput(),
        files: z.array(diffFileOutput()),
      }),
    )
    .query(async ({ input, ctx }) => {
      const page = { limit: input.limit, offset: input.offset };
      const comparison = await compareRefs(ctx.identity, input, input, page);
      setPageHeaders(ctx, { total: comparison.totals.files, ...page });
      return comparison;
    }),

  search: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/search`,
        tags,
        summary: "Search the code at a branch with git grep (fixed string unless regex=true)",
      },
      etag: true,
      errors: { ...ambiguous, 422: ["SEARCH_TIMEOUT"] },
    })
    .input(
      z.object({
        ...projectParams(),
        q: text().min(1).max(SEARCH_QUERY_MAX),
        ref: refName().optional(),
        path: text().min(1).max(1000).optional(),
        regex: flag(),
        case: flag(),
        limit: boundedInt(1, SEARCH_MATCHES_MAX, SEARCH_MATCHES_DEFAULT),
      }),
    )
    .output(
      z.object({
        ref: z.string(),
        commit: z.string(),
        matches: z.array(z.object({ path: z.string(), line: z.number().int(), text: z.string() })),
        truncated: z.boolean(),
      }),
    )
    .query(({ input, ctx }) =>
      searchCode(ctx.identity, input, {
        q: input.q,
        ref: input.ref,
        path: input.path,
        regex: input.regex === "true",
        caseSensitive: input.case === "true",
        limit: input.limit,
      }),
    ),

  blame: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/blame`,
        tags,
        summary: "Which commit last changed each line of a file (git blame)",
      },
      etag: true,
      errors: ambiguous,
    })
    .input(z.object({ ...projectParams(), path: text().min(1).max(4096), ref: refName().optional() }))
    .output(
      z.object({
        ref: z.string(),
        commit: z.string(),
        path: z.string(),
        ranges: z.array(
          z.object({
            startLine: z.number().int(),
            endLine: z.number().int(),
            commit: z.object({ sha: z.string(), message: z.string(), author: person() }),
          }),
        ),
      }),
    )
    .query(({ input, ctx }) => blameFile(ctx.identity, input, input.path, input.ref)),

  // The raw and archive routes answer bytes (plain routes); these are their JSON forms for tRPC, the SDK and MCP.
  contents: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/contents`,
        tags,
        summary:
          "One file as JSON (GitHub's contents API): UTF-8 or base64 content up to 1 MiB, above it encoding none and downloadUrl (the raw route)",
      },
      etag: true,
      errors: ambiguous,
    })
    .input(z.object({ ...projectParams(), path: text().min(1).max(4096), ref: refName().optional() }))
    .output(
      z.object({
        path: z.string(),
        ref: z.string(),
        commit: z.string(),
        sha: z.string(),
        size: z.number().int(),
        encoding: z.enum(["utf-8", "base64", "none"]),
        content: z.string(),
        downloadUrl: z.string(),
      }),
    )
    .query(({ input, ctx }) => fileContents(ctx.identity, input, input.path, input.ref)),

  archiveLink: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/archive-link`,
        tags,
        summary: "Where the archive of a ref downloads from (a URL naming the commit) and its ETag",
      },
      etag: true,
      errors: ambiguous,
    })
    .input(
      z.object({ ...projectParams(), ref: refName().optional(), format: z.enum(ARCHIVE_FORMATS).default("tar.gz") }),
    )
    .output(
      z.object({
        ref: z.string(),
        commit: z.string(),
        format: z.enum(ARCHIVE_FORMATS),
        fileName: z.string(),
        url: z.string(),
        etag: z.string(),
      }),
    )
    .query(({ input, ctx }) => archiveLink(ctx.identity, input, input.ref, input.format)),

  tags: publicProcedure
    .meta({
      openapi: { method: "GET", path: `${PROJECT}/tags`, tags, summary: "Tags, newest first" },
      etag: true,
      list: true,
    })
    .input(z.object({ ...projectParams(), limit: listLimit(), offset: listOffset() }))
    .output(z.object({ tags: z.array(tagOutput()) }))
    .query(async ({ input, ctx }) => {
      const page = { limit: input.limit, offset: input.offset };
      const { total, tags: list } = await listTags(ctx.identity, input, page);
      setPageHeaders(ctx, { total, ...page });
      return { tags: list };
    }),

  createTag: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PROJECT}/tags`,
        tags,
        summary: "Create a tag (annotated when a message is given; writers). Tags never move",
      },
      successStatus: 201,
      errors: { 409: ["TAG_EXISTS", "AMBIGUOUS_REF", "BRANCH_NAME_CONFLICT", "TARGET_DELETING"] },
    })
    .input(
      z.object({
        ...projectParams(),
        name: text().min(1).max(255),
        target: refName().optional(),
        message: text().max(65_536).optional(),
      }),
    )
    .output(z.object({ tag: tagOutput() }))
    .mutation(({ input, ctx }) =>
      createTag(ctx.identity, input, { name: input.name, target: input.target, message: input.message }),
    ),

  // Hierarchical names arrive as one %2F-joined segment (see the rewrite table in server/api/rest.ts).
  deleteTag: authedProcedure
    .meta({
      openapi: { method: "DELETE", path: `${PROJECT}/tags/{name}`, tags, summary: "Delete a tag (project admins)" },
      errors: { 409: ["CONFLICT", "TARGET_DELETING"] },
    })
    .input(z.object({ ...projectParams(), name: pathSegment() }))
    .output(z.object({ deleted: z.boolean(), name: z.string() }))
    .mutation(({ input, ctx }) => deleteTag(ctx.identity, input, input.name)),

  branch: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${PROJECT}/branches/{name}`,
        tags,
        summary: "One branch, ahead of and behind the default branch",
      },
      etag: true,
      errors: ambiguous,
    })
    .input(z.object({ ...projectParams(), name: pathSegment() }))
    .output(
      z.object({
        branch: z.object({
          name: z.string(),
          commit: z.string(),
          default: z.boolean(),
          aheadBy: z.number().int(),
          behindBy: z.number().int(),
        }),
      }),
    )
    .query(({ input, ctx }) => branchDetail(ctx.identity, input, input.name)),
});
