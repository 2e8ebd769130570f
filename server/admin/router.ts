import { z } from "zod";
import { adminProcedure, router, setCursorHeaders } from "@/server/trpc";
import { publicUserOutput, usernameSchema } from "@/server/auth";
import { boundedInt, listLimit, text } from "@/server/http";
import { verifyAudit } from "@/server/audit";
import { metricsAsJson } from "@/server/metrics";
import { BackupStatus, getBackup, getRestore, listBackups, requestBackup } from "@/server/backup";
import { AUDIT_LIST_LIMIT_DEFAULT, AUDIT_LIST_LIMIT_MAX } from "@/server/limits";
import { auditEntries, cachesReport, createUserAsAdmin } from "./service";

const auditEntryOutput = () =>
  z.object({
    id: z.string(),
    action: z.string(),
    actor: z.string(),
    projectId: z.string().nullable(),
    target: z.string().nullable(),
    data: z.record(z.string(), z.unknown()),
    ip: z.string().nullable(),
    createdAt: z.string(),
    hash: z.string(),
  });

const backupOutput = () =>
  z.object({
    id: z.string(),
    status: z.enum(BackupStatus),
    createdAt: z.string(),
    completedAt: z.string().nullable(),
    bytes: z.number().nullable(),
    projects: z.number().int().nullable(),
    error: z.string().nullable(),
  });

const restoreOutput = () =>
  z.object({
    id: z.string(),
    status: z.enum(BackupStatus),
    projects: z.number().int().nullable(),
    error: z.string().nullable(),
    /** A failure's code: PUSH_TIMEOUT (504 in the error catalogue) when a repository ran past its bound, BACKUP_INVALID... */
    code: z.string().nullable(),
  });

const recordId = () => z.object({ id: z.string().min(1).max(100) });

const metricFamilyOutput = () =>
  z.object({
    name: z.string(),
    type: z.string(),
    help: z.string(),
    samples: z.array(
      z.object({
        name: z.string().optional(),
        labels: z.record(z.string(), z.string()),
        value: z.number().nullable().describe("null for NaN (e.g. event-loop lag before its first sample)"),
      }),
    ),
  });

export const adminRouter = router({
  createUser: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/users",
        tags: ["admin"],
        summary: "Create a user (an administrator with isAdmin) and its legacy credential",
      },
      successStatus: 201,
      errors: { 409: ["CONFLICT"] },
    })
    .input(z.object({ username: usernameSchema(), isAdmin: z.boolean().optional() }))
    .output(z.object({ user: publicUserOutput(), token: z.string() }))
    .mutation(async ({ input, ctx }) => {
      const created = await createUserAsAdmin(ctx.identity, input);
      ctx.response.headers["Cache-Control"] = "no-store";
      return created;
    }),

  audit: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/audit",
        tags: ["admin"],
        summary:
          "Audit entries, newest first (filters: action, actor, project @ns/slug, before an entry id: Link rel=next)",
      },
      errors: { 404: [] },
      list: "cursor",
    })
    .input(
      z.object({
        action: text().max(100).optional(),
        actor: text().max(100).optional(),
        project: text().max(200).optional(),
        before: text().max(100).optional(),
        limit: boundedInt(1, AUDIT_LIST_LIMIT_MAX, AUDIT_LIST_LIMIT_DEFAULT),
      }),
    )
    .output(z.object({ entries: z.array(auditEntryOutput()) }))
    .query(async ({ input, ctx }) => {
      const entries = await auditEntries(input);
      setCursorHeaders(ctx, { limit: input.limit, count: entries.length, nextBefore: entries.at(-1)?.id });
      return { entries };
    }),

  verifyAudit: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/audit/verify",
        tags: ["admin"],
        summary: "Recompute the audit hash chain",
      },
    })
    .input(z.object({}))
    .output(z.object({ ok: z.boolean(), entries: z.number().int(), firstBrokenId: z.string().nullable() }))
    .query(() => verifyAudit()),

  metrics: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/metrics",
        tags: ["admin"],
        summary: "Metrics; Prometheus text exposition unless Accept: application/json asks for this JSON form",
      },
    })
    .input(z.object({}))
    .output(z.object({ metrics: z.array(metricFamilyOutput()) }))
    .query(async ({ ctx }) => {
      ctx.response.headers["Cache-Control"] = "no-store";
      return { metrics: await metricsAsJson() };
    }),

  caches: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/caches",
        tags: ["admin"],
        summary: "The process's memory and every process-wide cache's size and bound (this instance only)",
      },
    })
    .input(z.object({}))
    .output(
      z.object({
        memory: z.object({
          rssBytes: z.number(),
          heapUsedBytes: z.number(),
          heapTotalBytes: z.number(),
          externalBytes: z.number(),
          arrayBuffersBytes: z.number(),
          /** The embedded database's WebAssembly memory and its thread's JS heap; null on PostgreSQL. */
          databaseWasmBytes: z.number().nullable(),
          databaseHeapUsedBytes: z.number().nullable(),
        }),
        caches: z.array(
          z.object({
            name: z.string(),
            entries: z.number(),
            limit: z.number().nullable(),
            unit: z.string(),
            bound: z.string(),
            misses: z.number().optional(),
          }),
        ),
      }),
    )
    .query(async ({ ctx }) => {
      ctx.response.headers["Cache-Control"] = "no-store";
      return cachesReport();
    }),

  createBackup: adminProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/admin/backups",
        tags: ["admin"],
        summary: "Start an online backup (runs in the background)",
      },
      successStatus: 202,
      errors: { 409: ["CONFLICT"] },
    })
    .input(z.object({}))
    .output(z.object({ backup: z.object({ id: z.string(), status: z.literal("running"), createdAt: z.string() }) }))
    .mutation(async ({ ctx }) => {
      const { id, createdAt } = await requestBackup(ctx.identity);
      return { backup: { id, status: "running" as const, createdAt } };
    }),

  listBackups: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/backups",
        tags: ["admin"],
        summary: "Backups, newest first (before a backup id: Link rel=next)",
      },
      errors: { 404: [] },
      list: "cursor",
    })
    .input(z.object({ before: text().max(100).optional(), limit: listLimit() }))
    .output(z.object({ backups: z.array(backupOutput()) }))
    .query(async ({ input, ctx }) => {
      const backups = await listBackups(input);
      setCursorHeaders(ctx, { limit: input.limit, count: backups.length, nextBefore: backups.at(-1)?.id });
      return { backups };
    }),

  getBackup: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/backups/{id}",
        tags: ["admin"],
        summary: "One backup (its archive: GET /api/admin/backups/{id}/archive)",
      },
    })
    .input(recordId())
    .output(z.object({ backup: backupOutput() }))
    .query(async ({ input }) => ({ backup: await getBackup(input.id) })),

  getRestore: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/admin/restore/{id}",
        tags: ["admin"],
        summary: "One restore (started by POST /api/admin/restore with an archive)",
      },
    })
    .input(recordId())
    .output(z.object({ restore: restoreOutput() }))
    .query(async ({ input }) => ({ restore: await getRestore(input.id) })),
});
