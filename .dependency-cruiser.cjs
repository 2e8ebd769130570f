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
const KERNEL = ["access", "caches", "errors", "limits", "config", "db", "keys", "generated", "log", "processes"];

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
  users: ["agents", "audit", "auth", "events", "http", "orgs", "projects", "secrets", "trpc"],
  events: ["auth", "jobs"],
  health: ["http", "jobs", "trpc"],
  orgs: ["audit", "auth", "http", "trpc"],
  projects: ["audit", "auth", "events", "git", "http", "orgs", "policy", "trpc"],
  workspaces: ["audit", "auth", "events", "git", "http", "projects", "trpc"],
  activity: ["auth", "events", "http", "projects", "trpc"],
  webhooks: ["auth", "events", "http", "projects", "trpc"],
  issues: ["auth", "events", "git", "http", "projects", "trpc"],
  runners: ["git", "policy"],
  evaluators: ["git", "policy", "runners", "webhooks"],
  code: ["auth", "events", "git", "http", "projects", "trpc"],
  secrets: ["audit", "auth", "http", "projects", "trpc"],
  deployments: [
    "audit",
    "auth",
    "events",
    "evaluators",
    "git",
    "http",
    "jobs",
    "policy",
    "projects",
    "secrets",
    "trpc",
    "webhooks",
  ],
  changes: [
    "agents",
    "auth",
    "code",
    "deployments",
    "evaluators",
    "events",
    "git",
    "http",
    "imports",
    "issues",
    "jobs",
    "policy",
    "projects",
    "providers",
    "runners",
    "trpc",
    "workspaces",
  ],
  deletion: ["audit", "auth", "changes", "git", "http", "jobs", "orgs", "projects", "trpc"],
  backup: ["audit", "auth", "git", "jobs", "secrets"],
  providers: [],
  imports: ["auth", "events", "git", "http", "jobs", "projects", "providers", "trpc"],
  metrics: ["audit", "auth", "changes", "deployments", "imports", "issues", "jobs", "projects", "webhooks"],
  "git-http": ["auth", "deployments", "events", "git", "http", "metrics", "policy", "projects", "workspaces"],
  // The top: they wire areas together and nothing imports them but app/, scripts/ and tests.
  api: [
    "activity",
    "admin",
    "agents",
    "auth",
    "backup",
    "changes",
    "code",
    "deletion",
    "deployments",
    "events",
    "health",
    "http",
    "imports",
    "issues",
    "jobs",
    "metrics",
    "orgs",
    "projects",
    "secrets",
    "trpc",
    "users",
    "webhooks",
    "workspaces",
  ],
  runtime: [
    "auth",
    "changes",
    "deployments",
    "events",
    "git",
    "issues",
    "jobs",
    "runners",
    "secrets",
    "webhooks",
    "workspaces",
  ],
  // MCP tools call the REST procedures through a server-side caller of the root router.
  mcp: ["api", "auth", "events", "http", "trpc"],
  oauth: ["auth", "http"],
};

/**
 * Outside server/: the job definitions, the Next.js routes (with the root files Next loads beside
 * them, proxy.ts and instrumentation.ts) and the command-line scripts.
 */
const TOP = {
  inngest: ["backup", "changes", "deletion", "deployments", "events", "imports", "jobs", "webhooks", "workspaces"],
  app: ["api", "auth", "changes", "git-http", "health", "http", "imports", "jobs", "mcp", "oauth"],
  root: ["http", "runtime"],
  scripts: ["api", "backup", "http", "runtime", "users"],
};
const TOP_PATHS = { inngest: "^inngest/", app: "^app/", root: "^(proxy|instrumentation)\\.ts$", scripts: "^scripts/" };

/**
 * Code that only tests and measures: vitest files, the fixtures and helpers areas keep for them
 * (test-*.ts), tests/, e2e/ and bench/. It may import anything; nothing else may import it.
 */
const TEST_CODE = [
  "\\.test\\.ts$",
  "(^|/)test-[^/]+\\.ts$",
  "^(tests|e2e|bench)/",
  "^(vitest|playwright)\\.config\\.ts$",
];

/**
 * Edges: pages, route handlers, tRPC routers (router.ts, *-router.ts) and the modules of an area that
 * answer HTTP themselves (*endpoint.ts, *endpoints.ts, handler.ts). They parse, authorize and call a
 * service; storage is the service's business.
 */
const EDGES = ["^app/", "^server/.+(/|-)router\\.ts$", "^server/.+(/|-)endpoints?\\.ts$", "^server/.+/handler\\.ts$"];

function assertAcyclic(table) {
  const state = {};
  const visit = (area, path) => {
    if (state[area] === "done") return;
    if (state[area] === "visiting")
      throw new Error(`.dependency-cruiser.cjs: areas depend on each other: ${[...path, area].join(" -> ")}`);
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
    {
      name: "no-circular",
      severity: "error",
      comment: "Modules must not import each other, directly or around a loop.",
      from: {},
      to: { circular: true },
    },
    {
      name: "kernel-imports-kernel",
      severity: "error",
      comment: "The kernel stays at the bottom: it imports only the kernel.",
      from: { path: serverArea(KERNEL), pathNot: TEST_CODE },
      to: { path: "^server/", pathNot: [serverArea(KERNEL), ...TEST_CODE] },
    },
    {
      name: "area-without-a-row",
      severity: "error",
      comment: "Every folder of server/ is an area with a row in AREAS (.dependency-cruiser.cjs).",
      from: { path: "^server/", pathNot: [serverArea(known), ...TEST_CODE] },
      to: { path: "^server/", pathNot: [serverArea(KERNEL), ...TEST_CODE] },
    },
    ...Object.entries({ ...AREAS }).map(([area, allowed]) => ({
      name: `area-${area}`,
      severity: "error",
      comment: `server/${area} may import only the kernel and: ${allowed.join(", ") || "nothing else"} (AREAS in .dependency-cruiser.cjs).`,
      from: { path: serverArea([area]), pathNot: TEST_CODE },
      to: { path: "^server/", pathNot: [serverArea([area, ...KERNEL, ...allowed]), ...TEST_CODE] },
    })),
    ...Object.entries(TOP).map(([top, allowed]) => ({
      name: `top-${top}`,
      severity: "error",
      comment: `${TOP_PATHS[top]} may import only the kernel and: ${allowed.join(", ")} (TOP in .dependency-cruiser.cjs).`,
      from: { path: TOP_PATHS[top] },
      to: { path: "^server/", pathNot: [serverArea([...KERNEL, ...allowed]), ...TEST_CODE] },
    })),
    {
      name: "server-below-the-top",
      severity: "error",
      comment: "server/ is imported by app/, inngest/, scripts/ and the root files, never the other way round.",
      from: { path: "^server/", pathNot: TEST_CODE },
      to: { path: "^(app|inngest|scripts|client)/|^[^/]+\\.(ts|tsx|mjs|js|json)$" },
    },
    {
      name: "client-stands-alone",
      severity: "error",
      comment: "client/ (the SDK and the CLI) speaks HTTP to the server; it imports none of its code.",
      from: { path: "^(client|examples)/" },
      to: { path: "^(server|app|inngest|scripts)/|^[^/]+\\.(ts|tsx|mjs|js|json)$" },
    },
    {
      name: "client-package-dependencies",
      severity: "error",
      comment:
        "client/ is its own npm package (@svc-forge/client): a package it imports is a dependency in client/package.json, not only the server's. cli/bin.mjs is the root package's launcher (through tsx) and is not packed.",
      from: { path: "^client/", pathNot: "^client/cli/bin\\.mjs$" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown", "npm-dev"] },
    },
    {
      name: "production-imports-no-test-code",
      severity: "error",
      comment:
        "Test fixtures and helpers (test-*.ts, *.test.ts, tests/, e2e/, bench/) are for tests; production code never imports them.",
      from: { pathNot: TEST_CODE },
      to: { path: TEST_CODE },
    },
    {
      name: "front-door",
      severity: "error",
      comment: "Another area is entered through its index.ts (server/api/router.ts also mounts each area's router.ts).",
      from: { path: "^(server/[^/.]+)/", pathNot: ["^server/api/router\\.ts$", ...TEST_CODE] },
      to: {
        path: "^server/[^/.]+/",
        pathNot: ["^$1/", "^server/[^/.]+/index\\.ts$", "^server/generated/", ...TEST_CODE],
      },
    },
    {
      name: "front-door-from-a-single-file-area",
      severity: "error",
      comment: "A single-file area of server/ (trpc.ts, config.ts...) enters a folder area through its index.ts.",
      from: { path: "^server/[^/]+\\.ts$", pathNot: TEST_CODE },
      to: { path: "^server/[^/.]+/", pathNot: ["^server/[^/.]+/index\\.ts$", "^server/generated/"] },
    },
    {
      name: "front-door-from-outside",
      severity: "error",
      comment: "app/, inngest/, scripts/ and the root files enter an area through its index.ts.",
      from: { path: ["^(app|inngest|scripts)/", TOP_PATHS.root] },
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
      comment:
        "Pages, route handlers, routers and HTTP endpoints call services; they never touch Prisma, the database or git themselves.",
      from: { path: EDGES, pathNot: TEST_CODE },
      to: { path: ["^server/generated/", "^server/db/", "^server/git/", "node_modules/(isomorphic-git|@prisma)/"] },
    },
  ],
  options: {
    doNotFollow: { path: ["node_modules", "^server/generated/"] },
    // Build output (the app's, the SDK package's) and throwaway copies of the app; the fixtures
    // that prove these rules fire (tests/platform/dependency-rules.test.ts runs this file on them).
    exclude: { path: ["(^|/)\\.next/", "^bench/\\.work/", "^client/dist/", "^scripts/depcruise-fixtures/"] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
  },
};
