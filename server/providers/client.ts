import { config } from "@/server/config";
import { ProviderError, redactCredentials, type FailureCategory } from "./failures";

/**
 * Octokit and its plugins, loaded on the first call to the provider: a server that never imports or
 * syncs does not hold them (bench/users-me measures the resident memory of one that does not).
 */
const loadOctokit = async () => {
  const [{ Octokit }, { retry }, { throttling }] = await Promise.all([
    import("@octokit/core"),
    import("@octokit/plugin-retry"),
    import("@octokit/plugin-throttling"),
  ]);
  return Octokit.plugin(retry, throttling);
};
let providerOctokit: ReturnType<typeof loadOctokit> | undefined;

/**
 * The provider's REST client: Octokit pointed at GITHUB_API_URL (the instance token goes as a Bearer header). 5xx and
 * network failures are retried by the retry plugin; rate limits are not waited out (an import or a
 * sync fails RATE_LIMITED and can be retried), so both throttling handlers decline.
 */
async function client() {
  const ProviderOctokit = await (providerOctokit ??= loadOctokit());
  return new ProviderOctokit({
    baseUrl: config.githubApiUrl,
    userAgent: "svc-forge",
    retry: { retries: 1, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    throttle: { onRateLimit: () => false, onSecondaryRateLimit: () => false },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

interface RequestFailure {
  status?: number;
  message?: string;
  name?: string;
  cause?: { name?: string; code?: string; cause?: { code?: string } };
  response?: { headers?: Record<string, string | undefined> };
}

/** The category of a failed REST call, from its status, headers or the network error under it. */
export function classifyRestFailure(error: unknown): FailureCategory {
  const failure = error as RequestFailure;
  const status = failure.status;
  if (status === 401) return "AUTH_ERROR";
  if (status === 429 || (status === 403 && failure.response?.headers?.["x-ratelimit-remaining"] === "0"))
    return "RATE_LIMITED";
  if (status === 403) return "AUTH_ERROR";
  if (status === 404) return "NOT_FOUND";
  const cause = failure.cause;
  if (
    failure.name === "TimeoutError" ||
    failure.name === "AbortError" ||
    cause?.name === "TimeoutError" ||
    cause?.name === "AbortError"
  )
    return "TIMEOUT";
  const code = cause?.code ?? cause?.cause?.code;
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT" || code === "ETIMEDOUT") return "TIMEOUT";
  if (code || /fetch failed/i.test(failure.message ?? "")) return "NETWORK_ERROR";
  return "UNKNOWN_ERROR";
}

async function send<T>(route: string, params: Record<string, unknown>): Promise<T> {
  try {
    const token = config.githubToken;
    const response = await (
      await client()
    ).request(route, {
      ...params,
      headers: token ? { authorization: `Bearer ${token}` } : {},
      // A timeout per attempt (not one for all of them), so a retried refusal keeps its own category.
      request: {
        fetch: (url: string, init: RequestInit) =>
          fetch(url, { ...init, signal: AbortSignal.timeout(config.providerTimeoutSeconds * 1000) }),
      },
    });
    return response.data as T;
  } catch (error) {
    const category = classifyRestFailure(error);
    const status = (error as RequestFailure).status;
    throw new ProviderError(
      category,
      redactCredentials(
        `${route.split(" ")[0]} ${route.split(" ")[1]}: ${status ?? ""} ${(error as Error).message}`
          .replace(/\s+/g, " ")
          .trim(),
      ),
    );
  }
}

export interface ProviderRepository {
  defaultBranch: string;
  private: boolean;
}

/** GET /repos/{owner}/{repo}: says early whether the source exists and the token is accepted. */
export async function getRepository(source: { owner: string; repo: string }): Promise<ProviderRepository> {
  const data = await send<{ default_branch: string; private: boolean }>("GET /repos/{owner}/{repo}", {
    owner: source.owner,
    repo: source.repo,
  });
  return { defaultBranch: data.default_branch, private: data.private };
}

export interface Comparison {
  /** Commits reachable from `head` and not from `base`. */
  aheadBy: number;
  behindBy: number;
}

/** GET /repos/{owner}/{repo}/compare/{base}...{head}: how far `head` is ahead of `base` (NOT_FOUND for an unknown commit). */
export async function compareCommits(
  source: { owner: string; repo: string },
  base: string,
  head: string,
): Promise<Comparison> {
  const data = await send<{ ahead_by: number; behind_by: number }>("GET /repos/{owner}/{repo}/compare/{basehead}", {
    owner: source.owner,
    repo: source.repo,
    basehead: `${base}...${head}`,
  });
  return { aheadBy: data.ahead_by, behindBy: data.behind_by };
}

export interface PullRequestRef {
  number: number;
  url: string;
}

export async function createPullRequest(
  source: { owner: string; repo: string },
  input: { title: string; body: string; head: string; base: string; draft: boolean },
): Promise<PullRequestRef> {
  const data = await send<{ number: number; html_url: string }>("POST /repos/{owner}/{repo}/pulls", {
    owner: source.owner,
    repo: source.repo,
    ...input,
  });
  return { number: data.number, url: data.html_url };
}

export async function postCommitStatus(
  source: { owner: string; repo: string },
  sha: string,
  input: { state: "success" | "failure" | "error"; context: string; description: string },
): Promise<void> {
  await send("POST /repos/{owner}/{repo}/statuses/{sha}", { owner: source.owner, repo: source.repo, sha, ...input });
}

export async function postPullRequestComment(
  source: { owner: string; repo: string },
  number: number,
  body: string,
): Promise<void> {
  await send("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
    owner: source.owner,
    repo: source.repo,
    issue_number: number,
    body,
  });
}
