import { z } from "zod";
import { publicProcedure, router, FORM_OR_JSON } from "@/server/trpc";
import { namespaceSegment, pathSegment, namedSchema } from "@/server/http";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, toggleWebhook } from "./service";

const BASE = "/projects/{namespace}/{slug}/webhooks";
const tags = ["webhooks"];
const URL_MAX = 2048;

const projectInput = () => z.object({ namespace: namespaceSegment(), slug: pathSegment() });
const hookInput = () => projectInput().extend({ id: pathSegment() });

const webhookOutput = namedSchema("Webhook", () =>
  z.object({
    id: z.string(),
    url: z.string(),
    events: z.string(),
    active: z.boolean(),
    failureStreak: z.number().int(),
    disabledAt: z.string().nullable(),
    disabledReason: z.string().nullable(),
    createdAt: z.string(),
  }),
);

const deliveryOutput = namedSchema("WebhookDelivery", () =>
  z.object({
    id: z.string(),
    deliveryId: z.string(),
    eventId: z.string(),
    kind: z.string().nullable(),
    attempt: z.number().int(),
    succeeded: z.boolean(),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    responseExcerpt: z.string().nullable(),
    error: z.string().nullable(),
    createdAt: z.string(),
  }),
);

const webhooksPage = (input: { namespace: string; slug: string }) =>
  `/@${input.namespace}/${input.slug}/settings/webhooks`;

// Every route needs project write access (403 for readers; 404 for callers who cannot read the project).
export const webhooksRouter = router({
  create: publicProcedure
    .meta({
      openapi: { method: "POST", path: BASE, tags, summary: "Create a webhook; its secret is returned only here" },
      successStatus: 201,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(
      projectInput().extend({
        url: z
          .string()
          .max(URL_MAX)
          .url()
          .refine((value) => /^https?:$/.test(new URL(value).protocol), "url must be http or https"),
        events: z.string().max(1000).default("*"),
      }),
    )
    .output(z.object({ webhook: webhookOutput().extend({ secret: z.string() }) }))
    .mutation(async ({ input, ctx }) => ({ webhook: await createWebhook(ctx.identity, input, input) })),

  list: publicProcedure
    .meta({
      openapi: { method: "GET", path: BASE, tags, summary: "The project's webhooks, secrets omitted" },
      errors: { 403: [] },
    })
    .input(projectInput())
    .output(z.object({ webhooks: z.array(webhookOutput()) }))
    .query(async ({ input, ctx }) => ({ webhooks: await listWebhooks(ctx.identity, input) })),

  delete: publicProcedure
    .meta({
      openapi: { method: "DELETE", path: `${BASE}/{id}`, tags, summary: "Delete a webhook and its delivery log" },
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(hookInput())
    .output(z.object({ deleted: z.boolean(), id: z.string() }))
    .mutation(({ input, ctx }) => deleteWebhook(ctx.identity, input, input.id)),

  deleteForm: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{id}/delete`,
        tags,
        summary: "Form alias of DELETE; 302 back to the webhooks page",
        contentTypes: FORM_OR_JSON,
      },
      successStatus: 302,
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(hookInput())
    .output(z.object({ deleted: z.boolean(), id: z.string() }))
    .mutation(async ({ input, ctx }) => {
      const result = await deleteWebhook(ctx.identity, input, input.id);
      ctx.response.status = 302;
      ctx.response.headers.Location = webhooksPage(input);
      ctx.response.redirect = webhooksPage(input);
      return result;
    }),

  toggle: publicProcedure
    .meta({
      openapi: { method: "POST", path: `${BASE}/{id}/toggle`, tags, summary: "Flip the webhook's active flag" },
      errors: { 409: ["TARGET_DELETING"] },
    })
    .input(hookInput())
    .output(z.object({ id: z.string(), active: z.boolean() }))
    .mutation(({ input, ctx }) => toggleWebhook(ctx.identity, input, input.id)),

  deliveries: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: `${BASE}/{id}/deliveries`,
        tags,
        summary: "Recent delivery attempts, newest first",
      },
      errors: { 403: [] },
    })
    .input(hookInput())
    .output(z.object({ deliveries: z.array(deliveryOutput()) }))
    .query(async ({ input, ctx }) => ({ deliveries: await listDeliveries(ctx.identity, input, input.id) })),
});
