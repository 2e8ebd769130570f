import Link from "next/link";
import { CodeSearchForm } from "./code-search-form";
import { CommitLink } from "./commit-link";
import { preloadNames } from "../_lib/people";
import { read } from "../_lib/session";
import type { loadProject } from "../_lib/project";
import { pathUrl } from "../_lib/tree";
import { Breadcrumbs } from "./breadcrumbs";
import { Markdown } from "./markdown";
import { RelativeTime } from "./relative-time";
import { Pager } from "./pager";
import { ProjectHeader } from "./project-header";
import { TableHead } from "./table-head";
import { CopyButton } from "./copy-button";
import { EntryIcon } from "./entry-icon";
import { EventSentence } from "./event-sentence";
import { LanguageBar, readLanguages } from "./language-bar";

type Loaded = Awaited<ReturnType<typeof loadProject>>;

const KIND_NAMES = { dir: "directory", file: "file", symlink: "symbolic link", submodule: "submodule" } as const;

/** A directory of the project at a branch: branch switcher, clone URL, entries (paginated), its README, and on the root the recent activity. */
export async function TreeView({
  loaded,
  gitRef,
  dir,
  page,
}: {
  loaded: Loaded;
  gitRef?: string;
  dir: string;
  page: number;
}) {
  const { api, namespace, slug, base, project } = loaded;
  const branch = gitRef ?? project.defaultBranch;
  const languages = dir === "" ? readLanguages(api, { namespace, slug }, branch) : null;
  // Awaited by the bar; a page refused below (its 404) never renders the bar, so nothing else must await it.
  languages?.catch(() => undefined);
  // One page of one directory (not every path of the commit), with the branches beside it.
  const [listing, branches, activity] = await Promise.all([
    read(() => api.repository.directory({ namespace, slug, ref: branch, path: dir, page })),
    api.repository.branches({ namespace, slug }),
    dir === "" ? api.activity.list({ namespace, slug, limit: 10 }) : null,
  ]);
  if (activity) await preloadNames(activity.events.map((event) => event.actor));
  const pages = Math.max(1, Math.ceil(listing.total / listing.pageSize));
  const inDir = (name: string) => (dir === "" ? name : `${dir}/${name}`);
  const readmeContent =
    listing.readme === null
      ? null
      : await api.repository.blob({ namespace, slug, path: inDir(listing.readme), ref: branch });
  return (
    <>
      <ProjectHeader
        base={base}
        path={project.path}
        visibility={project.visibility}
        current="code"
        canWrite={loaded.level !== "read" && loaded.level !== "none"}
      />
      <h1 className={dir === "" ? undefined : "path"}>
        {dir === "" ? project.path : <Breadcrumbs base={base} slug={slug} gitRef={branch} path={dir} />}
      </h1>
      {dir === "" && project.description !== "" && <p className="description">{project.description}</p>}
      {languages && <LanguageBar languages={languages} />}
      <div className="row">
        <form method="get" action={base}>
          <label htmlFor="branch">Branch</label>
          <select id="branch" name="ref" defaultValue={branch}>
            {branches.branches.map((b) => (
              <option key={b.name} value={b.name}>
                {b.name}
              </option>
            ))}
          </select>{" "}
          <button type="submit">Switch</button>
        </form>
        <div>
          <label htmlFor="clone-url">Clone URL</label>
          <input id="clone-url" readOnly value={project.remote} size={50} />{" "}
          <CopyButton target="clone-url" label="Copy the clone URL" />
        </div>
        {dir === "" && <CodeSearchForm base={base} gitRef={branch} />}
      </div>
      <p className="muted">
        {listing.total} {listing.total === 1 ? "entry" : "entries"} at <CommitLink base={base} sha={listing.commit} /> ·{" "}
        <Link href={`${base}/commits/${encodeURIComponent(branch)}`}>History</Link> ·{" "}
        <Link href={`${base}/branches`}>Branches</Link> · <Link href={`${base}/tags`}>Tags</Link>
      </p>
      <div className="scroll">
        <table aria-label="Files" className="entries">
          <TableHead columns={["Name", "Last commit", "Updated"]} />
          <tbody>
            {listing.entries.map((entry) => (
              <tr key={entry.name}>
                <td title={KIND_NAMES[entry.kind]} className="name">
                  <EntryIcon kind={entry.kind} />{" "}
                  {entry.kind === "submodule" ? (
                    <span>{entry.name}</span>
                  ) : (
                    <Link href={pathUrl(base, entry.kind === "dir" ? "tree" : "blob", branch, inDir(entry.name))}>
                      {entry.kind === "dir" ? `${entry.name}/` : entry.name}
                    </Link>
                  )}
                </td>
                <td className="summary">
                  {entry.lastCommit && (
                    <Link href={`${base}/commit/${entry.lastCommit.oid}`} className="muted">
                      {entry.lastCommit.summary}
                    </Link>
                  )}
                </td>
                <td>{entry.lastCommit && <RelativeTime iso={entry.lastCommit.time} />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        page={page}
        pages={pages}
        label="Files pages"
        href={(n) => `${pathUrl(base, "tree", branch, dir)}?page=${n}`}
      />
      {readmeContent?.value !== undefined && (
        <section aria-labelledby="readme">
          <h2 id="readme">{listing.readme}</h2>
          <Markdown source={readmeContent.value} context={{ base, ref: branch, dir }} />
        </section>
      )}
      {activity && (
        <section aria-labelledby="activity">
          <h2 id="activity">Recent activity</h2>
          {activity.events.length === 0 ? (
            <p>Nothing yet.</p>
          ) : (
            <ul>
              {activity.events.map((event) => (
                <li key={event.id}>
                  <EventSentence event={event} project={project.path} /> <RelativeTime iso={event.occurredAt} />
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </>
  );
}
