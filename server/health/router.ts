import { z } from "zod";
import { publicProcedure, router } from "@/server/trpc";
import { SERVICE_NAME, healthReport } from "./service";

const checkSchema = z.object({
  status: z.enum(["ok", "failed"]),
  critical: z.boolean(),
  latencyMs: z.number(),
  detail: z.string().optional(),
});

export const healthRouter = router({
  full: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/health",
        tags: ["health"],
        protect: false,
        summary: "Dependency health (503 when a critical dependency failed)",
      },
      errors: { 503: [] },
    })
    .input(z.object({}))
    .output(
      z.object({
        status: z.enum(["healthy", "degraded", "unhealthy"]),
        service: z.string(),
        timestamp: z.string(),
        checks: z.record(z.string(), checkSchema),
      }),
    )
    .query(async ({ ctx }) => {
      const report = await healthReport();
      ctx.response.status = report.status === "unhealthy" ? 503 : 200;
      ctx.response.headers["Cache-Control"] = "no-store";
      return report;
    }),
  simple: publicProcedure
    .meta({ openapi: { method: "GET", path: "/health/simple", tags: ["health"], protect: false } })
    .input(z.object({}))
    .output(z.object({ status: z.string(), service: z.string(), timestamp: z.string() }))
    .query(() => ({ status: "ok", service: SERVICE_NAME, timestamp: new Date().toISOString() })),
});
