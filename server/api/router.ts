import { mergeRouters, router } from "@/server/trpc";
import { healthRouter } from "@/server/health/router";
import { adminRouter } from "@/server/admin/router";
import { usersRouter } from "@/server/users/router";
import { agentsRouter } from "@/server/agents/router";
import { issuesRouter } from "@/server/issues/router";
import { activityRouter } from "@/server/activity/router";
import { webhooksRouter } from "@/server/webhooks/router";
import { projectAccessRouter, projectsRouter, repositoryRouter } from "@/server/projects/router";
import { orgsRouter } from "@/server/orgs/router";
import { workspacesRouter } from "@/server/workspaces/router";
import { changesRouter, commentsRouter, conflictsRouter, reviewsRouter } from "@/server/changes/router";
import { accountDeletionRouter, deletionJobsRouter, projectDeletionRouter } from "@/server/deletion/router";
import { jobsRouter } from "@/server/jobs/router";
import { deploymentsRouter } from "@/server/deployments/router";
import { secretsRouter } from "@/server/secrets/router";
import { importsRouter } from "@/server/imports/router";
import { codeRouter } from "@/server/code/router";

/** The root router: one sub-router per area of server/. */
export const appRouter = router({
  health: healthRouter,
  admin: adminRouter,
  users: usersRouter,
  agents: agentsRouter,
  issues: issuesRouter,
  activity: activityRouter,
  webhooks: webhooksRouter,
  projects: mergeRouters(projectsRouter, projectDeletionRouter),
  repository: repositoryRouter,
  projectAccess: projectAccessRouter,
  orgs: orgsRouter,
  workspaces: workspacesRouter,
  changes: changesRouter,
  reviews: reviewsRouter,
  comments: commentsRouter,
  conflicts: conflictsRouter,
  accountDeletion: accountDeletionRouter,
  jobs: jobsRouter,
  deletionJobs: deletionJobsRouter,
  deployments: deploymentsRouter,
  secrets: secretsRouter,
  imports: importsRouter,
  code: codeRouter,
});

export type AppRouter = typeof appRouter;
