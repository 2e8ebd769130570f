// Plain JavaScript on purpose: a next.config.ts makes every start of the production server load the
// SWC compiler (about 30 MB of resident memory) only to transpile this file.
/** @type {import("next").NextConfig} */
const nextConfig = {
  serverExternalPackages: ["@electric-sql/pglite", "pglite-prisma-adapter", "@prisma/client", "isomorphic-git", "pg"],
  poweredByHeader: false,
  // Every reader gets a page's <title> in its HTML, not streamed after it. Client navigations (a
  // form's answer, a refresh) still stream it after the content whatever this says (docs/web.md).
  htmlLimitedBots: /.*/,
  // Load a route's code when it is first asked for, not every route at start: a server that never
  // sees a git client or an Inngest call never holds their modules.
  // authInterrupts: pages answer settings below the needed level with forbidden() (a 403 page).
  experimental: { preloadEntriesOnStart: false, authInterrupts: true },
  // Every answer, pages and API alike; the pages' Content-Security-Policy (with its nonce) is set in proxy.ts.
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
        ],
      },
    ];
  },
  // Git smart HTTP lives at BASE_URL/@ns/slug.git/... (and .../workspaces/<name>.git/...); a folder
  // named "@ns" would be a parallel-route slot, so those URLs are rewritten to app/(git)/git-http.
  async rewrites() {
    return {
      beforeFiles: [
        { source: "/:namespace(@[^/]+)/:repo+/info/refs", destination: "/git-http/:namespace/:repo+/info/refs" },
        {
          source: "/:namespace(@[^/]+)/:repo+/:service(git-upload-pack|git-receive-pack)",
          destination: "/git-http/:namespace/:repo+/:service",
        },
        // OAuth discovery for MCP clients (RFC 8414, RFC 9728, with or without the resource's path).
        {
          source: "/.well-known/oauth-authorization-server/:path*",
          destination: "/oauth/metadata/authorization-server",
        },
        { source: "/.well-known/oauth-protected-resource/:path*", destination: "/oauth/metadata/protected-resource" },
      ],
    };
  },
};

export default nextConfig;
