import { z } from "zod";
import { DomainError } from "@/server/errors";
import { namespaceSegment, pathSegment } from "@/server/http";
import { SECRET_VALUE_BYTES_MAX } from "@/server/limits";
import { publicProcedure, router, type Context, FORM_OR_JSON } from "@/server/trpc";
import { deleteSecret, listSecrets, putSecret } from "./service";

const BASE = "/projects/{namespace}/{slug}/secrets";
const tags = ["secrets"];

const projectInput = () => z.object({ namespace: namespaceSegment(), slug: pathSegment() });
const secretInput = () => projectInput().extend({ name: pathSegment() });
/** Bytes are checked by the service; this bounds the characters before anything is read. */
const valueInput = () => z.string().max(SECRET_VALUE_BYTES_MAX);

const secretOutput = () =>
  z.object({
    name: z.string(),
    createdBy: z.string(),
    updatedBy: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  });
const deletedOutput = () => z.object({ deleted: z.boolean(), name: z.string() });

const secretsPage = (input: { namespace: string; slug: string }) =>
  `/@${input.namespace}/${input.slug}/settings/secrets`;

/**
 * Form callers land on the settings page, with `?error=<CODE>` when the operation was refused;
 * JSON callers get the answer (or the error) as usual.
 */
async function answerForm<T, F>(
  ctx: Context,
  input: { namespace: string; slug: string },
  work: () => Promise<T>,
  fallback: F,
): Promise<T | F> {
  if (!ctx.isForm) return work();
  ctx.response.status = 302;
  try {
    const result = await work();
    ctx.response.redirect = secretsPage(input);
    return result;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    ctx.response.redirect = `${secretsPage(input)}?error=${encodeURIComponent(error.code ?? error.kind.toUpperCase())}`;
    return fallback;
  }
}

// Admins only, and people only: 401 without a user, 403 for agents and non-admins, 404 when the project is not readable.
export const secretsRouter = router({
  list: publicProcedure
    .meta({
      openapi: { method: "GET", path: BASE, tags, summary: "The project's secret names (never values)" },
      errors: { 403: [] },
    })
    .input(projectInput())
    .output(z.object({ secrets: z.array(secretOutput()) }))
    .query(async ({ input, ctx }) => ({ secrets: await listSecrets(ctx.identity, input) })),

  put: publicProcedure
    .meta({
      openapi: { method: "PUT", path: `${BASE}/{name}`, tags, summary: "Create (201) or replace (200) a secret" },
      alsoSuccess: [201],
      errors: { 403: [], 500: ["DEPLOY_SECRET_KEY_MISSING"] },
    })
    .input(secretInput().extend({ value: valueInput() }))
    .output(z.object({ secret: secretOutput() }))
    .mutation(async ({ input, ctx }) => {
      const { secret, created } = await putSecret(ctx.identity, input, input.name, input.value);
      ctx.response.status = created ? 201 : 200;
      return { secret };
    }),

  create: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: BASE,
        tags,
        summary: "Form-friendly PUT: name and value in the body",
        contentTypes: FORM_OR_JSON,
      },
      alsoSuccess: [201],
      errors: { 403: [], 500: ["DEPLOY_SECRET_KEY_MISSING"] },
    })
    .input(projectInput().extend({ name: z.string(), value: z.string() }))
    .output(z.object({ secret: secretOutput().optional() }))
    .mutation(async ({ input, ctx }) =>
      answerForm(
        ctx,
        input,
        async () => {
          const { secret, created } = await putSecret(ctx.identity, input, input.name, input.value);
          ctx.response.status = ctx.isForm ? 302 : created ? 201 : 200;
          return { secret };
        },
        { secret: undefined },
      ),
    ),

  delete: publicProcedure
    .meta({
      openapi: { method: "DELETE", path: `${BASE}/{name}`, tags, summary: "Delete a secret" },
      errors: { 403: [] },
    })
    .input(secretInput())
    .output(deletedOutput())
    .mutation(({ input, ctx }) => deleteSecret(ctx.identity, input, input.name)),

  deleteForm: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: `${BASE}/{name}/delete`,
        tags,
        summary: "Form alias of DELETE; 302 back to the secrets page",
        contentTypes: FORM_OR_JSON,
      },
      errors: { 403: [] },
    })
    .input(secretInput())
    .output(deletedOutput())
    .mutation(({ input, ctx }) =>
      answerForm(
        ctx,
        input,
        // A form caller lands on the page also when the name was already gone.
        () => deleteSecret(ctx.identity, input, input.name, { missingOk: ctx.isForm }),
        { deleted: false, name: input.name },
      ),
    ),
});
