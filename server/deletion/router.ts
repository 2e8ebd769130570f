import { z } from "zod";
import { adminProcedure, router, setCursorHeaders, userProcedure, type Context, FORM_OR_JSON } from "@/server/trpc";
import { invalid } from "@/server/errors";
import { listLimit, namedSchema, text } from "@/server/http";
import { listDeletionJobs, redriveDeletionJob } from "./admin";
import { projectParams } from "@/server/projects";
import { requestDeletion, requestProjectDeletion } from "./service";

const deletionOutput = namedSchema("DeletionJob", () => z.object({ status: z.literal("deleting"), jobId: z.string() }));

const PROJECT = "/projects/{namespace}/{slug}";
const deleteProjectInput = () => z.object({ ...projectParams(), confirm: z.string().optional() });

async function acceptProjectDeletion(ctx: Context, input: { namespace: string; slug: string; confirm?: string }) {
  const accepted = await requestProjectDeletion(ctx.identity, input, input.confirm);
  ctx.response.redirect = "/";
  return accepted;
}

/** Mounted beside the projects router, under the same tRPC namespace. */
export const projectDeletionRouter = router({
  // Owner-level and irreversible: the owner's agents act with the owner's access but may not do this.
  delete: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: PROJECT,
        tags: ["projects"],
        summary: "Delete the project (owning user, not an agent; confirm = @ns/slug); asynchronous",
      },
      successStatus: 202,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(deleteProjectInput())
    .output(deletionOutput())
    .mutation(({ input, ctx }) => acceptProjectDeletion(ctx, input)),

  deleteForm: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${PROJECT}/delete`,
        tags: ["projects"],
        summary: "Form alias of DELETE (form: 302 home)",
        contentTypes: FORM_OR_JSON,
      },
      successStatus: 202,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(deleteProjectInput())
    .output(deletionOutput())
    .mutation(({ input, ctx }) => acceptProjectDeletion(ctx, input)),
});

export const accountDeletionRouter = router({
  deleteMe: userProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/users/me",
        tags: ["users"],
        summary: "Delete the account (confirm = own username); asynchronous",
      },
      successStatus: 202,
    })
    .input(z.object({ confirm: z.string().optional() }))
    .output(deletionOutput())
    .mutation(({ input, ctx }) => {
      if (input.confirm !== ctx.identity.username)
        throw invalid("confirm must be exactly your username", "VALIDATION_ERROR");
      return requestDeletion("user", ctx.identity.userId, ctx.identity.userId);
    }),
});

const deletionJobOutput = () =>
  z.object({
    id: z.string(),
    kind: z.enum(["project", "user"]),
    targetId: z.string(),
    status: z.enum(["deleting", "completed", "failed"]),
    step: z.string().nullable(),
    attempts: z.number().int(),
    error: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  });

/** Administrators' view of the deletion jobs (mounted under admin). */
export const deletionJobsRouter = router({
  list: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/deletion-jobs",
        tags: ["admin"],
        summary: "Deletion jobs, newest first (filter: status; before a job id: Link rel=next)",
      },
      errors: { 404: [] },
      list: "cursor",
    })
    .input(
      z.object({
        status: z.enum(["deleting", "completed", "failed"]).optional(),
        before: text().max(100).optional(),
        limit: listLimit(),
      }),
    )
    .output(z.object({ jobs: z.array(deletionJobOutput()) }))
    .query(async ({ input, ctx }) => {
      const jobs = await listDeletionJobs(input);
      setCursorHeaders(ctx, { limit: input.limit, count: jobs.length, nextBefore: jobs.at(-1)?.id });
      return { jobs };
    }),

  redrive: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/deletion-jobs/{id}/redrive",
        tags: ["admin"],
        summary: "Start an incomplete deletion job again (409 NOT_REDRIVABLE otherwise)",
      },
      successStatus: 202,
      errors: { 409: ["NOT_REDRIVABLE"] },
    })
    .input(z.object({ id: z.string().min(1).max(100) }))
    .output(deletionOutput())
    .mutation(({ input }) => redriveDeletionJob(input.id)),
});
