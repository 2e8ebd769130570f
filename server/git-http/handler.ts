import { GIT_NEGOTIATION_BYTES_MAX, GIT_PUSH_BYTES_MAX } from "@/server/limits";
import { attributedTo } from "@/server/auth";
import { toHttpError } from "@/server/http";
import { countGitRequest } from "@/server/metrics";
import { authorizeGit } from "./access";
import { acceptedGitProtocol, advertise, assertSupportedEncoding, rpc } from "./backend";
import { GitHttpError } from "./errors";
import { receivePackConfig, serveProcReceive } from "./proc-receive";
import { applyPush } from "./push";
import { parseGitPath, type GitService, type GitTarget } from "./target";

/**
 * Clones and fetches see branches and tags, never the service's own `refs/svc/*` (a pin per change
 * evaluated: tens of thousands in a fleet's project, each advertised to a protocol v0 client).
 */
const UPLOAD_PACK_CONFIG = { "uploadpack.allowFilter": "true", "uploadpack.hideRefs": "refs/svc" };

const text = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(`${message}\n`, { status, headers: { ...headers, "Content-Type": "text/plain; charset=utf-8" } });

/** The service a request asks for, after the method and content-type checks of the smart protocol. */
function requestedService(req: Request, url: URL, target: GitTarget): GitService {
  const method = req.method.toUpperCase();
  if (target.endpoint === "info/refs") {
    if (method !== "GET" && method !== "HEAD") throw new GitHttpError(405, "Method not allowed", { Allow: "GET" });
    const service = url.searchParams.get("service");
    if (service !== "git-upload-pack" && service !== "git-receive-pack") {
      throw new GitHttpError(
        403,
        "Only the smart HTTP protocol is served (info/refs?service=git-upload-pack or git-receive-pack)",
      );
    }
    return service;
  }
  if (method !== "POST") throw new GitHttpError(405, "Method not allowed", { Allow: "POST" });
  if (req.headers.get("content-type") !== `application/x-${target.endpoint}-request`) {
    throw new GitHttpError(415, `Expected Content-Type application/x-${target.endpoint}-request`);
  }
  assertSupportedEncoding(req);
  return target.endpoint;
}

function assertDeclaredSize(req: Request, max: number): void {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > max) throw new GitHttpError(413, `Request body over ${max} bytes`);
}

/**
 * Git smart HTTP at `/@ns/slug.git/...` and `/@ns/slug/workspaces/<name>.git/...`: ref
 * advertisement, upload-pack (clone, fetch; protocol v2 when the client asks) and receive-pack
 * (push, every ref update decided by the server; see proc-receive.ts and rules.ts).
 */
export async function handleGitHttp(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const target = parseGitPath(url.pathname);
  if (!target) return text(404, "Not found");
  try {
    const service = requestedService(req, url, target);
    countGitRequest(service);
    const access = await authorizeGit(req, target, service);
    const isPush = service === "git-receive-pack";
    const options = {
      config: isPush ? receivePackConfig() : UPLOAD_PACK_CONFIG,
      // Push has no protocol v2 in git; receive-pack answers v0 whatever the client asks.
      gitProtocol: isPush ? undefined : acceptedGitProtocol(req.headers.get("git-protocol")),
      headers: access.headers,
    };
    if (target.endpoint === "info/refs") return advertise(service, access.repo.gitdir, options);
    const maxRequestBytes = isPush ? GIT_PUSH_BYTES_MAX : GIT_NEGOTIATION_BYTES_MAX;
    assertDeclaredSize(req, maxRequestBytes);
    return rpc(service, access.repo.gitdir, req, {
      ...options,
      maxRequestBytes,
      onHookChannel: isPush
        ? (channel) =>
            serveProcReceive(channel, (commands) =>
              attributedTo(access.identity, () => applyPush(access.identity, access, commands)),
            )
        : undefined,
    });
  } catch (error) {
    if (error instanceof GitHttpError) return text(error.status, error.message, error.headers);
    const httpError = toHttpError(error);
    return text(httpError.status, httpError.message, httpError.headers);
  }
}
