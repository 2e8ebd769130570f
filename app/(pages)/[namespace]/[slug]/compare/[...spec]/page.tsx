import { notFound } from "next/navigation";
import { CommitLink } from "../../../../_components/commit-link";
import { ProjectHeader } from "../../../../_components/project-header";
import { ReadDiff } from "../../../../_components/read-diff";
import { CommitTable } from "../../../../_components/commit-table";
import { atLeast, loadProject, projectAddress, type ProjectRouteParams } from "../../../../_lib/project";
import { read } from "../../../../_lib/session";

type Route = ProjectRouteParams & { spec: string[] };

/** `<base>...<head>` from the path (branch names may hold slashes). */
function refsOf(spec: string[]): { from: string; to: string } | null {
  const [from, to, ...rest] = spec.map(decodeURIComponent).join("/").split("...");
  return from && to && rest.length === 0 ? { from, to } : null;
}

export async function generateMetadata({ params }: { params: Promise<Route> }) {
  const route = await params;
  const { namespace, slug } = projectAddress(route);
  const refs = refsOf(route.spec);
  return { title: `${refs ? `Compare ${refs.from}...${refs.to}` : "Compare"} · ${namespace}/${slug}` };
}

/** Head's commits that base lacks, and the diff from their merge base to head. */
export default async function ComparePage({ params }: { params: Promise<Route> }) {
  const route = await params;
  const refs = refsOf(route.spec);
  if (!refs) notFound();
  const loaded = await loadProject(route);
  const { api, namespace, slug, base, project } = loaded;
  const comparison = await read(() => api.code.compare({ namespace, slug, base: refs.from, head: refs.to }));
  const { totals, files, commits } = comparison;
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="code"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>
        Compare <code>{refs.from}</code>...<code>{refs.to}</code>
      </h1>
      <p>
        <code>{refs.to}</code> is {comparison.aheadBy} commit{comparison.aheadBy === 1 ? "" : "s"} ahead of and{" "}
        {comparison.behindBy} behind <code>{refs.from}</code> · merge base{" "}
        <CommitLink base={base} sha={comparison.mergeBase} />
      </p>
      <section aria-labelledby="commits">
        <h2 id="commits">Commits</h2>
        {commits.length === 0 ? <p>No commits.</p> : <CommitTable base={base} commits={commits} />}
      </section>
      <ReadDiff totals={totals} files={files} />
    </>
  );
}
