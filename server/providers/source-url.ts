import { config } from "@/server/config";
import { invalid } from "@/server/errors";

export interface SourceRef {
  provider: "github";
  owner: string;
  repo: string;
  /** `GITHUB_URL/<owner>/<repo>`: the canonical form, never with credentials. */
  url: string;
}

// GitHub's own rules: owners are alphanumeric with inner hyphens, repositories also allow . and _.
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

/**
 * An import `url` must be `GITHUB_URL/<owner>/<repo>` (optional `.git`, optional trailing `/`);
 * anything else is 400 (unsupported provider). User info in the URL is refused: credentials never
 * travel in a URL.
 */
export function parseSourceUrl(input: string): SourceRef {
  const unsupported = () => invalid(`Unsupported provider URL: imports come from ${config.githubUrl}/<owner>/<repo>`);
  let url: URL;
  let base: URL;
  try {
    url = new URL(input);
    base = new URL(config.githubUrl);
  } catch {
    throw unsupported();
  }
  if (url.username || url.password || url.search || url.hash) throw unsupported();
  if (url.protocol !== base.protocol || url.host !== base.host) throw unsupported();
  const basePath = base.pathname.replace(/\/+$/, "");
  if (!url.pathname.startsWith(`${basePath}/`)) throw unsupported();
  const rest = url.pathname
    .slice(basePath.length + 1)
    .replace(/\/$/, "")
    .replace(/\.git$/, "");
  const [owner, repo, ...extra] = rest.split("/");
  if (extra.length || !owner || !repo || !OWNER.test(owner) || !REPO.test(repo) || repo === "." || repo === "..")
    throw unsupported();
  return { provider: "github", owner, repo, url: `${config.githubUrl}/${owner}/${repo}` };
}

/** Where git fetches and pushes a source (credentials go in the environment, never here). */
export const sourceGitUrl = (source: { owner: string; repo: string }) =>
  `${config.githubUrl}/${source.owner}/${source.repo}.git`;
