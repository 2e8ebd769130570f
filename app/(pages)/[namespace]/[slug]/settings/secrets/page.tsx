import { Flash } from "../../../../_components/flash";
import { ProjectHeader } from "../../../../_components/project-header";
import { SettingsNav } from "../../../../_components/settings-nav";
import { TableHead } from "../../../../_components/table-head";
import { Person } from "../../../../_components/person";
import { preloadNames } from "../../../../_lib/people";
import type { ProjectRouteParams } from "../../../../_lib/project";
import { loadSettings } from "../../../../_lib/settings";
import { SECRET_VALUE_BYTES_MAX } from "@/server/limits";
import { RelativeTime } from "../../../../_components/relative-time";
import { projectTitle } from "../../../../_lib/title";

export const generateMetadata = projectTitle(() => "Secrets");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** The secrets routes send a form caller back here with a bare code (`?error=<CODE>`): what it means to a person. */
const REFUSALS: Record<string, string> = {
  VALIDATION_ERROR: `A name is an upper-case letter then up to 63 of A-Z, 0-9 and _, and a value at most ${SECRET_VALUE_BYTES_MAX} bytes`,
  DEPLOY_SECRET_KEY_MISSING: "This instance has no DEPLOY_SECRET_KEY configured, so it cannot store secrets",
  FORBIDDEN: "Only project admins (people, not agents) manage secrets",
};

/** The deployment secret store of a project, for its admins: names and who wrote them when, never a value. */
export default async function SecretsPage({ params, searchParams }: Props) {
  const loaded = await loadSettings(await params, "admin");
  const query = await searchParams;
  const { api, namespace, slug, base, project } = loaded;
  const { secrets } = await api.secrets.list({ namespace, slug });
  await preloadNames(secrets.map((secret) => secret.updatedBy));
  const code = typeof query.error === "string" ? query.error : undefined;
  const refusal = code ? { error: REFUSALS[code] ?? "The secret store refused", code } : {};
  const route = `/api/projects/${project.path}/secrets`;
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="settings" canWrite />
      <h1>Secrets</h1>
      <SettingsNav base={base} current="secrets" isAdmin />
      <Flash query={refusal} />
      <p className="muted">
        Values handed to deployments by name (the policy&apos;s <code>deploys:</code> entries). A value is never shown
        again once set; setting a name that exists replaces its value.
      </p>
      <section aria-labelledby="set-secret">
        <h2 id="set-secret">Set a secret</h2>
        <form method="post" action={route}>
          <div>
            <label htmlFor="secret-name">Name</label>
            <input
              id="secret-name"
              name="name"
              required
              pattern="[A-Z][A-Z0-9_]{0,63}"
              maxLength={64}
              autoComplete="off"
              spellCheck={false}
              placeholder="DEPLOY_TOKEN"
            />
          </div>
          <div>
            <label htmlFor="secret-value">Value</label>
            <input id="secret-value" name="value" type="password" required autoComplete="new-password" />
          </div>
          <button type="submit" className="primary">
            Save secret
          </button>
        </form>
      </section>
      <section aria-labelledby="secrets">
        <h2 id="secrets">Secrets</h2>
        {secrets.length === 0 ? (
          <p>No secrets.</p>
        ) : (
          <div className="scroll">
            <table aria-label="Secrets">
              <TableHead columns={["Name", "Updated", "Updated by", "Action"]} />
              <tbody>
                {secrets.map((secret) => (
                  <tr key={secret.name}>
                    <td>
                      <code>{secret.name}</code>
                    </td>
                    <td>
                      <RelativeTime iso={secret.updatedAt} />
                    </td>
                    <td>
                      <Person actor={secret.updatedBy} />
                    </td>
                    <td>
                      <form method="post" action={`${route}/${secret.name}/delete`}>
                        <button type="submit" className="danger" aria-label={`Delete ${secret.name}`}>
                          Delete
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
