import { z } from "zod";
import { boundedInt, listOffset, namespaceSegment, pathSegment, text } from "@/server/http";
import { DEPLOYMENTS_LIMIT_DEFAULT, DEPLOYMENTS_LIMIT_MAX } from "@/server/limits";
import { authedProcedure, publicProcedure, router, userProcedure, FORM_OR_JSON } from "@/server/trpc";
import { approveDeployment, getDeployment, listDeployments, retryDeployment } from "./service";
import { DEPLOYMENT_STATUSES } from "./view";

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
const deploymentPage = (view: { id: string; project: { path: string } }) => `/${view.project.path}/deployments/${view.id}`;

export const deploymentsRouter = router({
  list: publicProcedure
    .meta({ openapi: { method: "GET", path: "/projects/{namespace}/{slug}/deployments", tags, summary: "The project's deployments, newest first" } })
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
    .query(({ input, ctx }) => listDeployments(ctx.identity, input, input)),

  get: publicProcedure
    .meta({ openapi: { method: "GET", path: "/deployments/{id}", tags, summary: "One deployment" } })
    .input(idInput())
    .output(z.object({ deployment: deploymentOutput() }))
    .query(async ({ input, ctx }) => ({ deployment: await getDeployment(ctx.identity, input.id) })),

  approve: userProcedure
    .meta({ openapi: { method: "POST", path: "/deployments/{id}/approve", tags, summary: "Approve a deployment awaiting approval (people only)", contentTypes: FORM_OR_JSON }, errors: { 403: [], 409: ["DEPLOYMENT_NOT_PENDING"], 503: ["DEPLOY_QUEUE_UNAVAILABLE"] } })
    .input(idInput())
    .output(z.object({ deployment: deploymentOutput() }))
    .mutation(async ({ input, ctx }) => {
      const deployment = await approveDeployment(ctx.identity, input.id);
      ctx.response.redirect = deploymentPage(deployment);
      return { deployment };
    }),

  retry: authedProcedure
    .meta({ openapi: { method: "POST", path: "/deployments/{id}/retry", tags, summary: "Retry a finished deployment as attempt + 1" }, successStatus: 201, errors: { 403: [], 409: ["DEPLOYMENT_NOT_RETRYABLE", "DEPLOYMENT_RETRY_EXISTS"], 503: ["DEPLOY_QUEUE_UNAVAILABLE"] } })
    .input(idInput())
    .output(z.object({ deployment: deploymentOutput() }))
    .mutation(async ({ input, ctx }) => ({ deployment: await retryDeployment(ctx.identity, input.id) })),
});
