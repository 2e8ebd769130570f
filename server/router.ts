import { router } from "@/server/trpc";
import { healthRouter } from "@/server/health/router";
import { adminRouter } from "@/server/admin/router";

/** The root router: one sub-router per area of server/. */
export const appRouter = router({
  health: healthRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
