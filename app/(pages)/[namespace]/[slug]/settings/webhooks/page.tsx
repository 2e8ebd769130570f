import { Flash } from "../../../../_components/flash";
import { ProjectFields } from "../../../../_components/hidden-fields";
import { ProjectHeader } from "../../../../_components/project-header";
import { SecretOnceForm } from "../../../../_components/secret-once-form";
import { SettingsNav } from "../../../../_components/settings-nav";
import { atLeast, type ProjectRouteParams } from "../../../../_lib/project";
import { loadSettings } from "../../../../_lib/settings";
import { readSecretFlash } from "../../../../_lib/secret-flash";
import { toggleWebhook } from "../actions";
import { TableHead } from "../../../../_components/table-head";
import { RelativeTime } from "../../../../_components/relative-time";
import { projectTitle } from "../../../../_lib/title";

export const generateMetadata = projectTitle(() => "Webhooks");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

export default async function WebhooksPage({ params, searchParams }: Props) {
  const loaded = await loadSettings(await params, "write");
  const query = await searchParams;
  const { api, namespace, slug, base, project, identity } = loaded;
  const [{ webhooks }, flash] = await Promise.all([api.webhooks.list({ namespace, slug }), readSecretFlash(identity)]);
  const deliveries = await Promise.all(
    webhooks.map((hook) => api.webhooks.deliveries({ namespace, slug, id: hook.id })),
  );
  const self = `${base}/settings/webhooks`;
  const ref = <ProjectFields namespace={namespace} slug={slug} back={self} />;
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="settings" canWrite />
      <h1>Webhooks</h1>
      <SettingsNav base={base} current="webhooks" isAdmin={atLeast(loaded.level, "admin")} />
      <Flash query={query} />
      <section aria-labelledby="new-webhook">
        <h2 id="new-webhook">New webhook</h2>
        <SecretOnceForm action={`${self}/create`} submit="Add webhook" flash={flash}>
          <div>
            <label htmlFor="webhook-url">Payload URL</label>
            <input id="webhook-url" name="url" type="url" required size={40} />
          </div>
          <div>
            <label htmlFor="webhook-events">Events (comma-separated, * for all)</label>
            <input id="webhook-events" name="events" defaultValue="*" />
          </div>
        </SecretOnceForm>
      </section>
      <section aria-labelledby="webhooks">
        <h2 id="webhooks">Webhooks</h2>
        {webhooks.length === 0 && <p>No webhooks.</p>}
        {webhooks.map((hook, index) => (
          <article key={hook.id} className="thread" aria-label={`Webhook to ${hook.url}`}>
            <p>
              <code>{hook.url}</code> <span className="badge">{hook.active ? "active" : "inactive"}</span> events:{" "}
              <code>{hook.events}</code>
              {hook.disabledReason && <span className="muted"> · disabled: {hook.disabledReason}</span>}
            </p>
            <div className="row">
              <form action={toggleWebhook}>
                {ref}
                <input type="hidden" name="id" value={hook.id} />
                <button type="submit">{hook.active ? "Deactivate" : "Activate"}</button>
              </form>
              <form method="post" action={`/api/projects/${project.path}/webhooks/${hook.id}/delete`}>
                <button type="submit" className="danger" aria-label={`Delete webhook to ${hook.url}`}>
                  Delete
                </button>
              </form>
            </div>
            <details>
              <summary>Recent deliveries ({deliveries[index].deliveries.length})</summary>
              <div className="scroll">
                <table aria-label={`Deliveries to ${hook.url}`}>
                  <TableHead columns={["When", "Event", "Attempt", "Result"]} />
                  <tbody>
                    {deliveries[index].deliveries.map((delivery) => (
                      <tr key={delivery.id}>
                        <td>
                          <RelativeTime iso={delivery.createdAt} />
                        </td>
                        <td>{delivery.kind}</td>
                        <td>{delivery.attempt}</td>
                        <td>
                          {delivery.succeeded
                            ? `ok (${delivery.statusCode})`
                            : `failed: ${delivery.error ?? delivery.statusCode}`}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </details>
          </article>
        ))}
      </section>
    </>
  );
}
