import { z } from "zod";
import { authedProcedure, publicProcedure, router } from "@/server/trpc";
import { text, namedSchema } from "@/server/http";
import { TEXT_BODY_MAX } from "@/server/limits";
import { changeIdParam } from "@/server/changes/schemas";
import { createComment, listComments, setResolved } from "./service";

const tags = ["changes"];
const BASE = "/changes/{id}/comments";

const commentOutput = namedSchema("ChangeComment", () =>
  z.object({
    id: z.string(),
    changeId: z.string(),
    body: z.string(),
    file: z.string().nullable(),
    line: z.number().nullable(),
    side: z.enum(["old", "new"]).nullable(),
    commitSha: z.string().nullable(),
    parentCommentId: z.string().nullable(),
    author: z.object({ id: z.string(), username: z.string().nullable() }).nullable(),
    agentId: z.string().nullable(),
    resolved: z.boolean(),
    resolvedAt: z.string().nullable(),
    resolvedById: z.string().nullable(),
    createdAt: z.string(),
  }),
);

const resolveInput = () => z.object({ id: changeIdParam(), commentId: z.string().min(1).max(100) });

export const commentsRouter = router({
  create: authedProcedure
    .meta({
      openapi: { method: "POST", path: BASE, tags, summary: "Comment on a change (read access; users and agents)" },
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"] },
      workspaceKey: true,
    })
    .input(
      z.object({
        id: changeIdParam(),
        body: text()
          .max(TEXT_BODY_MAX)
          .refine((value) => value.trim().length > 0, "body must not be empty"),
        file: text().min(1).max(4096).optional(),
        // The column is a 32-bit integer: a larger line is a 400, not a 500.
        line: z.number().int().min(1).max(2_147_483_647).optional(),
        side: z.enum(["old", "new"]).optional(),
        commitSha: z
          .string()
          .regex(/^[0-9a-f]{40}$/, "commitSha must be a full commit id")
          .optional(),
        parentCommentId: z.string().min(1).max(100).optional(),
      }),
    )
    .output(z.object({ comment: commentOutput() }))
    .mutation(async ({ input, ctx }) => {
      const { id, ...fields } = input;
      return { comment: await createComment(ctx.identity, id, fields) };
    }),

  list: publicProcedure
    .meta({ openapi: { method: "GET", path: BASE, tags, summary: "A change's comments, oldest first" } })
    .input(z.object({ id: changeIdParam() }))
    .output(z.object({ comments: z.array(commentOutput()) }))
    .query(async ({ input, ctx }) => ({ comments: await listComments(ctx.identity, input.id) })),

  resolve: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{commentId}/resolve`,
        tags,
        summary: "Resolve a thread (writers or the author)",
      },
    })
    .input(resolveInput())
    .output(z.object({ comment: commentOutput() }))
    .mutation(async ({ input, ctx }) => ({
      comment: await setResolved(ctx.identity, input.id, input.commentId, true),
    })),

  unresolve: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{commentId}/unresolve`,
        tags,
        summary: "Reopen a thread (writers or the author)",
      },
    })
    .input(resolveInput())
    .output(z.object({ comment: commentOutput() }))
    .mutation(async ({ input, ctx }) => ({
      comment: await setResolved(ctx.identity, input.id, input.commentId, false),
    })),
});
