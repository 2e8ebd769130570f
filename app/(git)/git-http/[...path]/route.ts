import { gitRoute, handleGitHttp } from "@/server/git-http";
import { traced } from "@/server/api";

// Git smart HTTP. Clients use BASE_URL/@ns/slug.git/...; next.config.mjs rewrites those URLs here
// (a folder named "@..." would be a parallel-route slot, not a path segment).
export const dynamic = "force-dynamic";

export const GET = traced(gitRoute, handleGitHttp);
export const HEAD = traced(gitRoute, handleGitHttp);
export const POST = traced(gitRoute, handleGitHttp);
