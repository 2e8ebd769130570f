import { admitRequest, type Identity } from "@/server/auth";
import { headBranch, openProjectRepo, openWorkspaceRepo, repoExists } from "@/server/git";
import { toHttpError } from "@/server/http";
import { assertNotImporting, atLeast, findProject, projectRole } from "@/server/projects";
import { canWriteWorkspace, findWorkspace } from "@/server/workspaces";
import { GitHttpError } from "./errors";
import type { PushScope } from "./rules";
import type { GitService, GitTarget } from "./target";

/** 401 with a Basic challenge: git then sends the credentials from the URL or a helper, or asks. */
const challenge = (message = "Authentication required") =>
  new GitHttpError(401, message, { "WWW-Authenticate": 'Basic realm="svc"' });
const notFound = () => new GitHttpError(404, "Repository not found");

export interface GitAccess extends PushScope {
  identity: Identity;
  /** X-RateLimit-* headers for the response. */
  headers: Record<string, string>;
}

/**
 * The REST gate's rules on git terms: credentials from the Authorization header only (HTTP Basic
 * with the token as password, or Bearer; git never sends our session cookie), the read-scope rule
 * with receive-pack as the write, and the per-identity rate limit. A read token asking to push
 * gets a plain 404, as the spec says.
 */
async function admit(
  req: Request,
  service: GitService,
): Promise<{ identity: Identity; headers: Record<string, string> }> {
  const headers = new Headers();
  const authorization = req.headers.get("authorization");
  if (authorization) headers.set("authorization", authorization);
  const intent = new Request(req.url, { method: service === "git-receive-pack" ? "POST" : "GET", headers });
  try {
    return await admitRequest(intent);
  } catch (error) {
    const refusal = toHttpError(error);
    if (refusal.status === 401) throw challenge(refusal.message);
    if (refusal.code === "TOKEN_SCOPE_INSUFFICIENT") throw notFound();
    throw new GitHttpError(refusal.status, refusal.message, refusal.headers);
  }
}

/**
 * Who may use a repository URL. Anyone who cannot read it gets 401 with a Basic challenge when
 * anonymous (so git retries with credentials) and 404 otherwise; a push needs a user or agent
 * with write access (workspaces: their writers), else 401 for anonymous and 404 for the rest.
 */
export async function authorizeGit(req: Request, target: GitTarget, service: GitService): Promise<GitAccess> {
  const { identity, headers } = await admit(req, service);
  const denied = () => (identity.kind === "anonymous" ? challenge() : notFound());
  const project = await findProject({ namespace: target.namespace, slug: target.slug });
  if (!project || project.deletingAt) throw denied();
  const role = await projectRole(identity, project);
  if (!atLeast(role, "read")) throw denied();
  const workspace = target.workspace ? await findWorkspace(project.id, target.workspace) : null;
  if (target.workspace && !workspace) throw notFound();
  if (service === "git-receive-pack") {
    if (identity.kind === "anonymous") throw challenge();
    const allowed = workspace ? canWriteWorkspace(identity, role, workspace) : atLeast(role, "write");
    if (!allowed) throw notFound();
    assertNotImporting(project);
  }
  const repo = workspace ? openWorkspaceRepo(project.id, workspace.name) : openProjectRepo(project.id);
  if (!repoExists(repo)) throw notFound();
  const defaultBranch = (workspace ? headBranch(repo) : project.defaultBranch) ?? project.defaultBranch;
  return { identity, headers, project, repo, workspace: workspace?.name, defaultBranch };
}
