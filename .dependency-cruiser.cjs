/**
 * The house's dependency rules, run by `npm run lint:deps` (and so by .ci/run).
 *
 * An area is a folder of server/ (or a single file for the kernel). Each area owns its tables and
 * rules and is entered through its front door, `index.ts`; `router.ts` is a second door that only
 * server/api/router.ts uses. AREAS below says which areas each area may import: the table must be
 * acyclic (checked when this file loads), so no two areas can depend on each other. A new area
 * adds its row here, and an area with no row may import nothing but the kernel.
 */

/** Small shared modules every area may import. They import only each other. */
const KERNEL = ["access", "errors", "limits", "config", "db", "keys", "generated", "log"];

/** Beyond the kernel, what each area may import. */
const AREAS = {
  audit: ["auth", "http"],
  http: [],
  git: [],
  auth: ["http"],
  trpc: ["auth", "http"],
  jobs: ["http", "trpc"],
  policy: ["git"],
  admin: ["audit", "auth", "backup", "http", "metrics", "projects", "trpc"],
  agents: ["audit", "auth", "http", "trpc"],
  users: ["auth", "http", "secrets", "trpc"],
  events: ["auth", "jobs"],
  health: ["jobs", "trpc"],
  orgs: ["audit", "auth", "http", "trpc"],
  projects: ["audit", "auth", "events", "git", "http", "orgs", "trpc"],
  workspaces: ["audit", "auth", "events", "git", "http", "projects", "trpc"],
  activity: ["auth", "http", "projects", "trpc"],
  webhooks: ["auth", "events", "http", "projects", "trpc"],
  issues: ["auth", "events", "http", "projects", "trpc"],
  evaluators: ["git", "policy", "webhooks"],
  secrets: ["audit", "auth", "http", "projects", "trpc"],
  deployments: ["audit", "auth", "events", "evaluators", "git", "http", "jobs", "policy", "projects", "secrets", "trpc", "webhooks"],
  changes: ["auth", "deployments", "evaluators", "events", "git", "http", "imports", "issues", "jobs", "policy", "projects", "providers", "trpc", "workspaces"],
  deletion: ["auth", "git", "http", "jobs", "orgs", "projects", "trpc"],
  backup: ["audit", "auth", "git", "jobs", "secrets"],
  providers: [],
  imports: ["auth", "events", "git", "http", "jobs", "projects", "providers", "trpc"],
  metrics: ["audit", "auth", "changes", "deployments", "imports", "issues", "jobs", "projects", "webhooks"],
  "git-http": ["auth", "deployments", "events", "git", "http", "metrics", "policy", "projects", "workspaces"],
  // The top: they wire areas together and nothing imports them but app/, scripts/ and tests.
  api: ["activity", "admin", "agents", "auth", "backup", "changes", "deletion", "deployments", "events", "health", "http", "imports", "issues", "jobs", "metrics", "orgs", "projects", "secrets", "trpc", "users", "webhooks", "workspaces"],
  runtime: ["auth", "events", "jobs"],
  // MCP tools call the REST procedures through a server-side caller of the root router.
  mcp: ["api", "auth", "events", "http", "trpc"],
  oauth: ["auth", "http"],
};

/** Outside server/: the job definitions, the Next.js routes and the command-line scripts. */
const TOP = {
  inngest: ["backup", "changes", "deletion", "deployments", "events", "imports", "jobs", "webhooks"],
  app: ["api", "auth", "changes", "git-http", "health", "http", "imports", "jobs", "mcp", "oauth"],
  scripts: ["api", "backup", "http", "users"],
};

function assertAcyclic(table) {
  const state = {};
  const visit = (area, path) => {
    if (state[area] === "done") return;
    if (state[area] === "visiting") throw new Error(`.dependency-cruiser.cjs: areas depend on each other: ${[...path, area].join(" -> ")}`);
    state[area] = "visiting";
    for (const next of table[area] ?? []) visit(next, [...path, area]);
    state[area] = "done";
  };
  for (const area of Object.keys(table)) visit(area, []);
}
assertAcyclic(AREAS);

const alternatives = (names) => `(${names.map((name) => name.replace(/[-]/g, "\\-")).join("|")})`;
const serverArea = (names) => `^server/${alternatives(names)}(/|\\.ts$)`;
const known = [...KERNEL, ...Object.keys(AREAS)];

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "Modules must not import each other, directly or around a loop.", from: {}, to: { circular: true } },
    {
      name: "kernel-imports-kernel",
      severity: "error",
      comment: "The kernel stays at the bottom: it imports only the kernel.",
      from: { path: serverArea(KERNEL) },
      to: { path: "^server/", pathNot: serverArea(KERNEL) },
    },
    {
      name: "area-without-a-row",
      severity: "error",
      comment: "Every folder of server/ is an area with a row in AREAS (.dependency-cruiser.cjs).",
      from: { path: "^server/", pathNot: serverArea(known) },
      to: { path: "^server/", pathNot: serverArea(KERNEL) },
    },
    ...Object.entries({ ...AREAS }).map(([area, allowed]) => ({
      name: `area-${area}`,
      severity: "error",
      comment: `server/${area} may import only the kernel and: ${allowed.join(", ") || "nothing else"} (AREAS in .dependency-cruiser.cjs).`,
      from: { path: serverArea([area]) },
      to: { path: "^server/", pathNot: serverArea([area, ...KERNEL, ...allowed]) },
    })),
    ...Object.entries(TOP).map(([top, allowed]) => ({
      name: `top-${top}`,
      severity: "error",
      comment: `${top}/ may import only the kernel and: ${allowed.join(", ")} (TOP in .dependency-cruiser.cjs).`,
      from: { path: `^${top}/` },
      to: { path: "^server/", pathNot: serverArea([...KERNEL, ...allowed]) },
    })),
    {
      name: "front-door",
      severity: "error",
      comment: "Another area is entered through its index.ts (server/api/router.ts also mounts each area's router.ts).",
      from: { path: "^(server/[^/.]+)/", pathNot: "^server/api/router\\.ts$" },
      to: { path: "^server/[^/.]+/", pathNot: ["^$1/", "^server/[^/.]+/index\\.ts$", "^server/generated/"] },
    },
    {
      name: "front-door-from-outside",
      severity: "error",
      comment: "app/, inngest/ and scripts/ enter an area through its index.ts.",
      from: { path: "^(app|inngest|scripts)/" },
      to: { path: "^server/[^/.]+/", pathNot: ["^server/[^/.]+/index\\.ts$"] },
    },
    {
      name: "routers-mount-only-routers",
      severity: "error",
      comment: "server/api/router.ts takes each area's router.ts and nothing else from inside an area.",
      from: { path: "^server/api/router\\.ts$" },
      to: { path: "^server/[^/.]+/", pathNot: ["^server/api/", "^server/[^/.]+/(index|router)\\.ts$"] },
    },
    {
      name: "edges-hold-no-storage",
      severity: "error",
      comment: "Pages, route handlers and routers call services; they never touch Prisma, the database or git themselves.",
      from: { path: ["^app/", "^server/.+/router\\.ts$", "^server/projects/repository-router\\.ts$"] },
      to: { path: ["^server/generated/", "^server/db/", "^server/git/", "node_modules/(isomorphic-git|@prisma)/"] },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^server/generated/"] },
    exclude: { path: ["\\.test\\.ts$", "test-fixtures\\.ts$", "test-support\\.ts$", "test-receiver\\.ts$"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
  },
};
