/** The smart-HTTP endpoints under a repository URL. */
export type GitEndpoint = "info/refs" | "git-upload-pack" | "git-receive-pack";
export type GitService = "git-upload-pack" | "git-receive-pack";

export interface GitTarget {
  namespace: string;
  slug: string;
  /** Set for a workspace fork: `/@ns/slug/workspaces/<name>.git`. */
  workspace?: string;
  endpoint: GitEndpoint;
}

/** Where Next.js rewrites smart-HTTP URLs to (see next.config.mjs); stripped before parsing. */
export const INTERNAL_PREFIX = "/git-http";

const ENDPOINTS: GitEndpoint[] = ["info/refs", "git-upload-pack", "git-receive-pack"];

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

const stripGit = (name: string) => (name.endsWith(".git") ? name.slice(0, -4) : name);
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/**
 * Parses `/@ns/slug.git/<endpoint>` and `/@ns/slug/workspaces/<name>.git/<endpoint>` (the `.git`
 * suffix is optional, as on other forges). Anything else is null.
 */
export function parseGitPath(pathname: string): GitTarget | null {
  const path = pathname.startsWith(`${INTERNAL_PREFIX}/`) ? pathname.slice(INTERNAL_PREFIX.length) : pathname;
  const endpoint = ENDPOINTS.find((candidate) => path.endsWith(`/${candidate}`));
  if (!endpoint) return null;
  const segments = path
    .slice(1, -(endpoint.length + 1))
    .split("/")
    .map(decode);
  if (segments.some((segment) => segment === null)) return null;
  const [ns, slug, workspacesWord, workspace] = segments as string[];
  if (!ns?.startsWith("@")) return null;
  const namespace = ns.slice(1);
  if (segments.length === 2) {
    const name = stripGit(slug);
    return SEGMENT.test(namespace) && SEGMENT.test(name) ? { namespace, slug: name, endpoint } : null;
  }
  if (segments.length === 4 && workspacesWord === "workspaces") {
    const name = stripGit(workspace);
    return SEGMENT.test(namespace) && SEGMENT.test(slug) && SEGMENT.test(name)
      ? { namespace, slug, workspace: name, endpoint }
      : null;
  }
  return null;
}

/** The route pattern of a git URL for the request log (never the concrete project or workspace). */
export function gitRoute(req: Request): string {
  const target = parseGitPath(new URL(req.url).pathname);
  if (!target) return "/{git}";
  return target.workspace
    ? `/@{namespace}/{slug}/workspaces/{workspace}.git/${target.endpoint}`
    : `/@{namespace}/{slug}.git/${target.endpoint}`;
}
