import { field } from "../../../../../_lib/form";
import { projectAddress, type ProjectRouteParams } from "../../../../../_lib/project";
import { redirectWithRefusal, redirectWithSecret } from "../../../../../_lib/secret-flash";
import { attempt } from "../../../../../_lib/session";

/** The webhooks page's create form: adds the webhook, then back to the page, which lists it and shows its signing secret once. */
export async function POST(request: Request, { params }: { params: Promise<ProjectRouteParams> }) {
  const { namespace, slug, base } = projectAddress(await params);
  const page = `${base}/settings/webhooks`;
  const form = await request.formData();
  const outcome = await attempt(async (api, identity) => ({
    created: await api.webhooks.create({
      namespace,
      slug,
      url: field(form, "url"),
      events: field(form, "events") || "*",
    }),
    identity,
  }));
  if ("error" in outcome) return redirectWithRefusal(page, outcome.error);
  const { created, identity } = outcome.value;
  if (identity.kind !== "user") return redirectWithRefusal(page, "Only a signed-in person adds webhooks here");
  return redirectWithSecret(page, identity.userId, {
    label: `Webhook to ${created.webhook.url}`,
    secret: created.webhook.secret,
  });
}
