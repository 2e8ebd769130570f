import { z } from "zod";
import { router, adminProcedure, setCursorHeaders } from "@/server/trpc";
import { listLimit } from "@/server/http";
import { JobRunStatus, cancelRun, getRun, listRuns } from "./admin";

const runSchema = () =>
  z.object({
    id: z.string(),
    function: z.string(),
    status: z.enum(JobRunStatus),
    event: z.object({ id: z.string(), name: z.string() }),
    failedAttempts: z.number(),
    lastError: z.string().nullable(),
    concurrencyKey: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    endedAt: z.string().nullable(),
  });

const runDetailSchema = () =>
  runSchema().extend({
    output: z.unknown(),
    steps: z.array(
      z.object({
        name: z.string(),
        status: z.enum(["completed", "failed"]),
        attempts: z.number(),
        error: z.string().nullable(),
        completedAt: z.string(),
      }),
    ),
  });

const runId = () => z.object({ id: z.string().min(1).max(100) });

/** Background-job runs for administrators (embedded executor; with Inngest, its dashboard has them). */
export const jobsRouter = router({
  list: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/jobs",
        tags: ["admin"],
        summary: "Background-job runs, newest first, with filters; `before` a run id pages on (Link rel=next)",
      },
      errors: { 404: [] },
      list: "cursor",
    })
    .input(
      z.object({
        status: z.enum(JobRunStatus).optional(),
        function: z.string().min(1).max(200).optional(),
        before: z.string().min(1).max(100).optional(),
        limit: listLimit(),
      }),
    )
    .output(z.object({ runs: z.array(runSchema()) }))
    .query(async ({ input, ctx }) => {
      const runs = await listRuns(input);
      setCursorHeaders(ctx, { limit: input.limit, count: runs.length, nextBefore: runs.at(-1)?.id });
      return { runs };
    }),
  get: adminProcedure
    .meta({ openapi: { method: "GET", path: "/admin/jobs/{id}", tags: ["admin"], summary: "One run with its steps" } })
    .input(runId())
    .output(z.object({ run: runDetailSchema() }))
    .query(async ({ input }) => ({ run: await getRun(input.id) })),
  cancel: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/jobs/{id}/cancel",
        tags: ["admin"],
        summary: "Cancel a run that has not ended",
      },
      errors: { 409: ["JOB_ALREADY_ENDED"] },
    })
    .input(runId())
    .output(z.object({ run: runDetailSchema() }))
    .mutation(async ({ input }) => ({ run: await cancelRun(input.id) })),
});
