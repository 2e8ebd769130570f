import { z } from "zod";
import { DomainError } from "@/server/errors";
import { boundedInt, listOffset, namespaceSegment, pathSegment, text } from "@/server/http";
import { DEPLOYMENTS_LIMIT_DEFAULT, DEPLOYMENTS_LIMIT_MAX } from "@/server/limits";
import {
  authedProcedure,
  publicProcedure,
  router,
  setPageHeaders,
  userProcedure,
  FORM_OR_JSON,
  type Context,
} from "@/server/trpc";
import { approveDeployment, getDeployment, listDeployments, retryDeployment } from "./service";
import { DEPLOYMENT_STATUSES, type DeploymentView } from "./view";

const tags = ["deployments"];

const deploymentOutput = () =>
  z.object({
    id: z.string(),
    project: z.object({ id: z.string(), path: z.string() }),
    name: z.string(),
    commit: z.string(),
    attempt: z.number().int(),
    status: z.enum(DEPLOYMENT_STATUSES),
    changeId: z.string().nullable(),
    requestedBy: z.string(),
    approvedBy: z.string().nullable(),
    approvedAt: z.string().nullable(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
    logTail: z.string().nullable().optional(),
  });

const idInput = () => z.object({ id: pathSegment() });
const deploymentPage = (view: { id: string; project: { path: string } }) =>
  `/${view.project.path}/deployments/${view.id}`;

/**
 * A form caller (the deployment pages' buttons) lands on the page of the deployment written; when
 * refused, back on the page of the one it pressed with the refusal's message and code in the
 * query string, as the pages' own forms come back. What it cannot read stays the API's 404.
 */
async function answerForm(
  ctx: Context,
  id: string,
  work: () => Promise<DeploymentView>,
): Promise<{ deployment: DeploymentView }> {
  if (!ctx.isForm) return { deployment: await work() };
  try {
    const deployment = await work();
    ctx.response.redirect = deploymentPage(deployment);
    return { deployment };
  } catch (error) {
    const pressed = error instanceof DomainError ? await getDeployment(ctx.identity, id).catch(() => null) : null;
    if (!pressed || !(error instanceof DomainError)) throw error;
    const query = new URLSearchParams({ error: error.message, ...(error.code ? { code: error.code } : {}) });
    ctx.response.redirect = `${deploymentPage(pressed)}?${query}`;
    return { deployment: pressed };
  }
}

export const deploymentsRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/projects/{namespace}/{slug}/deployments",
        tags,
        summary: "The project's deployments, newest first",
      },
      list: true,
    })
    .input(
      z.object({
        namespace: namespaceSegment(),
        slug: pathSegment(),
        name: text().max(64).optional(),
        status: z.enum(DEPLOYMENT_STATUSES).optional(),
        limit: boundedInt(1, DEPLOYMENTS_LIMIT_MAX, DEPLOYMENTS_LIMIT_DEFAULT),
        offset: listOffset(),
      }),
    )
    .output(z.object({ deployments: z.array(deploymentOutput()), total: z.number().int() }))
    .query(async ({ input, ctx }) => {
      const page = await listDeployments(ctx.identity, input, input);
      setPageHeaders(ctx, { total: page.total, limit: input.limit, offset: input.offset });
      return page;
    }),

  get: publicProcedure
    .meta({ openapi: { method: "GET", path: "/deployments/{id}", tags, summary: "One deployment" } })
    .input(idInput())
    .output(z.object({ deployment: deploymentOutput() }))
    .query(async ({ input, ctx }) => ({ deployment: await getDeployment(ctx.identity, input.id) })),

  approve: userProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/deployments/{id}/approve",
        tags,
        summary: "Approve a deployment awaiting approval (people only)",
        contentTypes: FORM_OR_JSON,
      },
      errors: { 403: [], 409: ["DEPLOYMENT_NOT_PENDING"], 503: ["DEPLOY_QUEUE_UNAVAILABLE"] },
    })
    .input(idInput())
    .output(z.object({ deployment: deploymentOutput() }))
    .mutation(({ input, ctx }) => answerForm(ctx, input.id, () => approveDeployment(ctx.identity, input.id))),

  retry: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/deployments/{id}/retry",
        tags,
        summary: "Retry a finished deployment as attempt + 1",
        contentTypes: FORM_OR_JSON,
      },
      successStatus: 201,
      errors: {
        403: [],
        409: ["DEPLOYMENT_NOT_RETRYABLE", "DEPLOYMENT_RETRY_EXISTS"],
        503: ["DEPLOY_QUEUE_UNAVAILABLE"],
      },
    })
    .input(idInput())
    .output(z.object({ deployment: deploymentOutput() }))
    .mutation(({ input, ctx }) => answerForm(ctx, input.id, () => retryDeployment(ctx.identity, input.id))),
});
