import { handleGitHttp } from "@/server/git-http";

// Git smart HTTP. Clients use BASE_URL/@ns/slug.git/...; next.config.mjs rewrites those URLs here
// (a folder named "@..." would be a parallel-route slot, not a path segment).
export const dynamic = "force-dynamic";

export const GET = handleGitHttp;
export const HEAD = handleGitHttp;
export const POST = handleGitHttp;
