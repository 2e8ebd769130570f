import { router } from "@/server/trpc";
import { healthRouter } from "@/server/health/router";
import { adminRouter } from "@/server/admin/router";
import { usersRouter } from "@/server/users/router";
import { agentsRouter } from "@/server/agents/router";

/** The root router: one sub-router per area of server/. */
export const appRouter = router({
  health: healthRouter,
  admin: adminRouter,
  users: usersRouter,
  agents: agentsRouter,
});

export type AppRouter = typeof appRouter;
