import Link from "next/link";
import { CommitLink } from "../../../_components/commit-link";
import { ProjectHeader } from "../../../_components/project-header";
import { TableHead } from "../../../_components/table-head";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { read } from "../../../_lib/session";
import { projectTitle } from "../../../_lib/title";
import { compareUrl } from "../../../_lib/tree";

export const generateMetadata = projectTitle(() => "Branches");

/** Ahead/behind is one git walk per branch: counted for the first ones only. */
const COUNTED = 50;

/** The branches, each with how far it is ahead of and behind the default branch. */
export default async function BranchesPage({ params }: { params: Promise<ProjectRouteParams> }) {
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project } = loaded;
  const { branches, defaultBranch, truncated, totalBranchCount } = await read(() =>
    api.repository.branches({ namespace, slug }),
  );
  const counts = await Promise.all(
    branches.slice(0, COUNTED).map((branch) =>
      api.code.branch({ namespace, slug, name: branch.name }).then(
        (answer) => answer.branch,
        () => null,
      ),
    ),
  );
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="code"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>Branches</h1>
      <p className="muted">
        {totalBranchCount} branch{totalBranchCount === 1 ? "" : "es"}
        {truncated && `, the first ${branches.length} shown`}; ahead and behind <code>{defaultBranch}</code>.
      </p>
      <div className="scroll">
        <table aria-label="Branches">
          <TableHead columns={["Branch", "Commit", "Behind", "Ahead", "Compare"]} />
          <tbody>
            {branches.map((branch, index) => {
              const count = counts[index];
              return (
                <tr key={branch.name}>
                  <td>
                    <Link href={`${base}/commits/${encodeURIComponent(branch.name)}`}>{branch.name}</Link>
                    {branch.name === defaultBranch && <span className="badge">default</span>}
                  </td>
                  <td>
                    <CommitLink base={base} sha={branch.oid} />
                  </td>
                  <td className="num">{count ? count.behindBy : ""}</td>
                  <td className="num">{count ? count.aheadBy : ""}</td>
                  <td>
                    {branch.name !== defaultBranch && (
                      <Link href={compareUrl(base, defaultBranch, branch.name)}>Compare</Link>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
