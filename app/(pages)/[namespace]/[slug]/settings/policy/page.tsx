import Link from "next/link";
import { Flash } from "../../../../_components/flash";
import { ProjectFields } from "../../../../_components/hidden-fields";
import { ProjectHeader } from "../../../../_components/project-header";
import { SettingsNav } from "../../../../_components/settings-nav";
import { atLeast, type ProjectRouteParams } from "../../../../_lib/project";
import { loadSettings } from "../../../../_lib/settings";
import { pathUrl } from "../../../../_lib/tree";
import { projectTitle } from "../../../../_lib/title";
import { commitPolicy } from "../actions";

export const generateMetadata = projectTitle(() => "Policy");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

const yesNo = (value: boolean) => (value ? "yes" : "no");

/** The policy in force (`.svc/policy.yml` on the default branch) as a summary, and its text to edit through a commit (admins). */
export default async function PolicyPage({ params, searchParams }: Props) {
  const loaded = await loadSettings(await params, "write");
  const query = await searchParams;
  const { api, namespace, slug, base, project } = loaded;
  const file = await api.projects.policy({ namespace, slug });
  const { policy } = file;
  const isAdmin = atLeast(loaded.level, "admin");
  const evaluators = policy
    ? ["secret scan", ...(["diff", "webhook", "llm", "sandbox"] as const).filter((name) => policy.evaluators[name])]
    : [];
  return (
    <>
      <ProjectHeader base={base} path={project.path} visibility={project.visibility} current="settings" canWrite />
      <h1>Policy</h1>
      <SettingsNav base={base} current="policy" isAdmin={isAdmin} />
      <Flash query={query} />
      <p>
        {file.text === null ? (
          <>
            No <code>{file.path}</code> on <code>{file.branch}</code>: the defaults apply.
          </>
        ) : (
          <>
            From <Link href={pathUrl(base, "blob", file.branch, file.path)}>{file.path}</Link> on{" "}
            <code>{file.branch}</code>.
          </>
        )}
      </p>
      {policy ? (
        <dl aria-label="Policy in force">
          <dt>Required approvals</dt>
          <dd>{policy.requiredApprovals}</dd>
          <dt>Branch protection</dt>
          <dd>
            {policy.protection.locked ? "locked: nothing merges" : "open to merges"}; direct pushes{" "}
            {policy.protection.allowDirectPush ? "allowed" : "refused"}
          </dd>
          <dt>Merging</dt>
          <dd>
            auto-queue {yesNo(policy.merge.autoQueue)}; fresh base required {yesNo(policy.merge.requireFreshBase)};
            force allowed {yesNo(policy.merge.allowForce)}
          </dd>
          <dt>Evaluators</dt>
          <dd>{evaluators.join(", ")}</dd>
          <dt>Deploys</dt>
          <dd>{policy.deploys.length === 0 ? "none" : policy.deploys.map((entry) => entry.name).join(", ")}</dd>
        </dl>
      ) : (
        <p className="error" role="alert">
          The policy file is refused, so merges are too: {file.error}
        </p>
      )}
      {isAdmin && (
        <form action={commitPolicy} aria-labelledby="edit-policy">
          <h2 id="edit-policy">Edit</h2>
          <ProjectFields namespace={namespace} slug={slug} back={`${base}/settings/policy`} />
          <input type="hidden" name="commit" value={file.commit} />
          <label htmlFor="policy-text">{file.path} (YAML)</label>
          <textarea
            id="policy-text"
            name="text"
            rows={14}
            spellCheck={false}
            defaultValue={file.text ?? "requiredApprovals: 0\n"}
            className="code"
          />
          <label htmlFor="policy-message">Commit message</label>
          <input id="policy-message" name="message" placeholder={`Update ${file.path}`} size={50} />
          <p className="muted">
            Committed to <code>{file.branch}</code> as you; a policy that does not parse is refused.
          </p>
          <button type="submit" className="primary">
            Commit policy
          </button>
        </form>
      )}
    </>
  );
}
