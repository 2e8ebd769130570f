import Link from "next/link";
import { CodeSearchForm } from "../../../_components/code-search-form";
import { ProjectHeader } from "../../../_components/project-header";
import { TableHead } from "../../../_components/table-head";
import { atLeast, loadProject, type ProjectRouteParams } from "../../../_lib/project";
import { refusalOf } from "@/server/api";
import { projectTitle } from "../../../_lib/title";
import { pathUrl } from "../../../_lib/tree";

export const generateMetadata = projectTitle(() => "Search");

type Props = {
  params: Promise<ProjectRouteParams>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
};

/** The search's answer, or the API's refusal (a bad pattern, a timeout) to show beside the form. */
async function searchOrRefusal<T>(run: () => Promise<T>): Promise<{ value: T } | { error: string }> {
  try {
    return { value: await run() };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal.status >= 500) throw error;
    return { error: refusal.message };
  }
}

const one = (value: string | string[] | undefined) => (typeof value === "string" ? value : "");

/** Code search results at a branch (git grep), each match a link to its file line. */
export default async function SearchPage({ params, searchParams }: Props) {
  const query = await searchParams;
  const loaded = await loadProject(await params);
  const { api, namespace, slug, base, project } = loaded;
  const q = one(query.q);
  const ref = one(query.ref) || project.defaultBranch;
  const regex = one(query.regex) === "true";
  const result =
    q === ""
      ? null
      : await searchOrRefusal(() => api.code.search({ namespace, slug, q, ref, regex: regex ? "true" : "false" }));
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="code"
        canWrite={atLeast(loaded.level, "write")}
      />
      <h1>Search</h1>
      <CodeSearchForm base={base} gitRef={ref} q={q} regex={regex} />
      {result && "error" in result && (
        <p className="notice" role="alert">
          {result.error}
        </p>
      )}
      {result && "value" in result && (
        <>
          <p>
            {result.value.matches.length} match{result.value.matches.length === 1 ? "" : "es"} at <code>{ref}</code>
            {result.value.truncated && " (the first ones only)"}.
          </p>
          {result.value.matches.length > 0 && (
            <div className="scroll">
              <table aria-label="Matches">
                <TableHead columns={["File", "Line", "Text"]} />
                <tbody>
                  {result.value.matches.map((match) => (
                    <tr key={`${match.path}:${match.line}`}>
                      <td>
                        <Link href={`${pathUrl(base, "blob", ref, match.path)}#L${match.line}`}>{match.path}</Link>
                      </td>
                      <td className="num">{match.line}</td>
                      <td>
                        <code>{match.text}</code>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </>
  );
}
