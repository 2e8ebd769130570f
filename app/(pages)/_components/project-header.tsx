import Link from "next/link";

const TABS = [
  { key: "code", label: "Code", path: "" },
  { key: "commits", label: "Commits", path: "/commits" },
  { key: "changes", label: "Changes", path: "/changes" },
  { key: "queue", label: "Queue", path: "/queue" },
  { key: "issues", label: "Issues", path: "/issues" },
  { key: "deployments", label: "Deployments", path: "/deployments" },
  { key: "settings", label: "Settings", path: "/settings" },
] as const;

export type ProjectTab = (typeof TABS)[number]["key"];

/** The project's title and its tabs (Settings only for writers). */
export function ProjectHeader({
  base,
  path,
  visibility,
  current,
  canWrite,
}: {
  base: string;
  path: string;
  visibility: string;
  current: ProjectTab;
  canWrite: boolean;
}) {
  return (
    <>
      <p className="muted">
        <Link href={base}>{path}</Link> <span className="badge">{visibility}</span>
      </p>
      <nav className="tabs" aria-label="Project">
        <ul>
          {TABS.filter((tab) => tab.key !== "settings" || canWrite).map((tab) => (
            <li key={tab.key}>
              <Link href={`${base}${tab.path}`} aria-current={tab.key === current ? "page" : undefined}>
                {tab.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </>
  );
}
