import { z } from "zod";
import { authedProcedure, publicProcedure, router, setPageHeaders, userProcedure, FORM_OR_JSON } from "@/server/trpc";
import {
  commentOutput,
  createCommentInput,
  createIssueInput,
  issueOutput,
  issueRefInput,
  labelsInput,
  listCommentsInput,
  listIssuesInput,
  patchIssueInput,
  timelineOutput,
} from "./schemas";
import type { Identity } from "@/server/auth";
import {
  createComment,
  createIssue,
  getIssue,
  issueReadVersion,
  issueTimeline,
  listComments,
  listIssues,
  patchIssue,
  projectLabels,
  toggleIssue,
} from "./service";

const BASE = "/projects/{namespace}/{slug}/issues";
const tags = ["issues"];

/** The ETag of one issue: its row's version. */
const issueVersion = (identity: Identity, input: { namespace: string; slug: string; number: number }) =>
  issueReadVersion(identity, input, input.number);

const issuePage = (ref: { namespace: string; slug: string }, number: number) =>
  `/@${ref.namespace}/${ref.slug}/issues/${number}`;

export const issuesRouter = router({
  create: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        tags,
        summary: "Open an issue (read access is enough; agents may)",
        contentTypes: FORM_OR_JSON,
      },
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(createIssueInput())
    .output(z.object({ issue: issueOutput() }))
    .mutation(async ({ input, ctx }) => {
      const { namespace, slug, ...fields } = input;
      const issue = await createIssue(ctx.identity, { namespace, slug }, fields);
      ctx.response.redirect = issuePage(input, issue.number);
      return { issue };
    }),

  list: publicProcedure
    .meta({ openapi: { method: "GET", path: BASE, tags, summary: "List issues, newest first by number" }, list: true })
    .input(listIssuesInput())
    .output(z.object({ issues: z.array(issueOutput()) }))
    .query(async ({ input, ctx }) => {
      const { namespace, slug, ...filter } = input;
      const { issues, total } = await listIssues(ctx.identity, { namespace, slug }, filter);
      setPageHeaders(ctx, { total, limit: filter.limit, offset: filter.offset });
      return { issues };
    }),

  get: publicProcedure
    .meta({ openapi: { method: "GET", path: `${BASE}/{number}`, tags, summary: "One issue" }, etag: issueVersion })
    .input(issueRefInput())
    .output(z.object({ issue: issueOutput() }))
    .query(async ({ input, ctx }) => ({ issue: await getIssue(ctx.identity, input, input.number, ctx.setVersion) })),

  patch: userProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: `${BASE}/{number}`,
        tags,
        summary: "Edit the fields present (writers, users only)",
      },
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(patchIssueInput())
    .output(z.object({ issue: issueOutput() }))
    .mutation(async ({ input, ctx }) => {
      const { namespace, slug, number, ...patch } = input;
      return { issue: await patchIssue(ctx.identity, { namespace, slug }, number, patch) };
    }),

  toggle: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{number}/close`,
        tags,
        summary: "Close an open issue or reopen a closed one; 302 to the issue page",
        contentTypes: FORM_OR_JSON,
      },
      successStatus: 302,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(issueRefInput())
    .output(z.object({ issue: issueOutput() }))
    .mutation(async ({ input, ctx }) => {
      const issue = await toggleIssue(ctx.identity, input, input.number);
      ctx.response.status = 302;
      ctx.response.headers.Location = issuePage(input, issue.number);
      ctx.response.redirect = issuePage(input, issue.number);
      return { issue };
    }),

  createComment: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{number}/comments`,
        tags,
        summary: "Comment on an issue (read access is enough; agents may)",
      },
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(createCommentInput())
    .output(z.object({ comment: commentOutput() }))
    .mutation(async ({ input, ctx }) => ({
      comment: await createComment(ctx.identity, input, input.number, input.body),
    })),

  listComments: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{number}/comments`,
        tags,
        summary: "Comments of an issue, oldest first",
      },
      list: true,
    })
    .input(listCommentsInput())
    .output(z.object({ comments: z.array(commentOutput()) }))
    .query(async ({ input, ctx }) => {
      const { comments, total } = await listComments(ctx.identity, input, input.number, input);
      setPageHeaders(ctx, { total, limit: input.limit, offset: input.offset });
      return { comments };
    }),

  // No REST route: the issue page's label picker reads it in-process (typed callers through /api/trpc).
  labels: publicProcedure
    .input(labelsInput())
    .output(z.object({ labels: z.array(z.string()) }))
    .query(async ({ input, ctx }) => ({ labels: await projectLabels(ctx.identity, input) })),

  // No REST route: the issue page reads it in-process (typed callers through /api/trpc).
  timeline: publicProcedure
    .input(issueRefInput())
    .output(timelineOutput())
    .query(async ({ input, ctx }) => ({ entries: await issueTimeline(ctx.identity, input, input.number) })),
});
