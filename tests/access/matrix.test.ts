// The authorization matrix: every operation of the OpenAPI document has a row in ROWS. A row of a
// project-scoped operation says what it needs; the test then asks it as every kind of caller, on a
// private and on a public project, and expects the status the access model gives. An operation
// whose access turns on more than the caller's level on a project (a change's author, a
// workspace's creator, the caller's own account) names the tests that cover it instead. A new route
// without a row fails here.
import { beforeAll, describe, expect, it } from "vitest";
import { atLeast, type AccessLevel, type GrantedLevel } from "@/server/access";
import { runSvcCommand } from "@/server/users/cli";
import { useTestEnvironment } from "@/tests/support/harness";
import { call, fetchInProcess, TEST_ORIGIN, type CallOptions } from "@/tests/support/http";
import { createTestSession, createTestToken } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";
import { createTestProject } from "@/server/projects/test-fixtures";
import { conformanceChecker } from "@/tests/support/openapi-conformance";

// Webhook targets on loopback (they are never called here: no event they subscribe to is sent to them in time).
// The owner makes a change of its own for each caller expected to merge, queue, reject or revert: no rate limit here.
useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "1", RATE_LIMIT_PER_MINUTE: "1000000" });

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type User = Awaited<ReturnType<typeof createTestUser>>;
type Project = Awaited<ReturnType<typeof createTestProject>>;

/** Which procedure kind answers: anyone, any authenticated caller, or a user identity only. */
type Kind = "public" | "authed" | "user";

interface Fixture {
  project: Project;
  /** A project with the same grants whose default branch is locked: its queued changes wait there. */
  held: Project;
  issueNumber: number;
  changeId: string;
  changeNumber: number;
}

interface Request {
  path: string;
  body?: unknown;
}

interface Row {
  kind: Kind;
  need: GrantedLevel;
  /** Status when the caller can read but lacks `need` (403 unless the spec hides more). */
  denied?: 403 | 404;
  /** The status for a level below `need` where it differs from `denied` (a writer who is not the workspace's creator: 404). */
  deniedAt?: Partial<Record<GrantedLevel, 403 | 404>>;
  /** A Server-Sent Events stream: the status is read and the stream closed. */
  stream?: boolean;
  /** The success status when it is not the document's 2xx (a form route's 302). */
  success?: number;
  /** A write a workspace key of the change's workspace may make (docs/contracts.md#agents). */
  keyMay?: boolean;
  /** Builds the request; `succeeds` says whether this caller is expected to get through. */
  request: (fixture: Fixture, succeeds: boolean) => Promise<Request> | Request;
}

interface CoveredElsewhere {
  coveredBy: string;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}${Date.now().toString(36)}`;

let owner: User;
let org: string;
let extraUser: User;

/** Sets up the project's grants: the same callers hold the same levels on every project. */
let grantAll: (project: Project) => Promise<void>;

const asOwner = (method: Method, path: string, body?: unknown) => call(method, path, { token: owner.token, body });

async function freshProject(visibility: "private" | "public", files: Record<string, string> = {}) {
  const project = await createTestProject(owner.token, {
    name: unique("m"),
    org,
    visibility,
    files: { "README.md": "hi\n", ...files },
  });
  await grantAll(project);
  return project;
}

async function webhookOf(project: Project) {
  const res = await asOwner("POST", `/api/projects/${project.path}/webhooks`, {
    url: "http://127.0.0.1:9/x",
    events: "issue.opened",
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.webhook.id as string;
}

const P = (fixture: Fixture, rest = "") => `/api/projects/${fixture.project.path}${rest}`;

/** A new change of the owner on the fixture's project (its base the current head): what a caller expected to merge, queue, reject or revert acts on, so the fixture's change stays. */
async function freshChange(fixture: Fixture, project = fixture.project): Promise<string> {
  const workspace = unique("fresh");
  expect((await asOwner("POST", `/api/workspaces/${project.path}/workspaces`, { name: workspace })).status).toBe(201);
  expect(
    (
      await asOwner("POST", `/api/workspaces/${workspace}/commit`, {
        projectId: project.id,
        message: workspace,
        files: { [`${workspace}.txt`]: "x\n" },
      })
    ).status,
  ).toBe(201);
  const proposed = await asOwner("POST", `/api/projects/${project.path}/changes`, { workspace });
  expect(proposed.status, JSON.stringify(proposed.body)).toBe(201);
  return proposed.body.change.id;
}

/** A fresh change waiting in the merge queue of the held project (its locked branch keeps it from landing meanwhile). */
async function queuedChange(fixture: Fixture): Promise<string> {
  const id = await freshChange(fixture, fixture.held);
  const queued = await asOwner("POST", `/api/changes/${id}/queue`, {});
  expect(queued.status, JSON.stringify(queued.body)).toBe(202);
  return id;
}

/** A fresh change merged by the owner, for a revert. */
async function mergedChange(fixture: Fixture): Promise<string> {
  const id = await freshChange(fixture);
  const merged = await asOwner("POST", `/api/changes/${id}/merge`);
  expect(merged.status, JSON.stringify(merged.body)).toBe(200);
  return id;
}

/** A new comment of the owner on the fixture's change, resolved or not. */
async function ownersComment(fixture: Fixture, resolved: boolean): Promise<string> {
  const comment = await asOwner("POST", `/api/changes/${fixture.changeId}/comments`, { body: "a thread" });
  expect(comment.status, JSON.stringify(comment.body)).toBe(201);
  const id = comment.body.comment.id as string;
  if (resolved)
    expect((await asOwner("POST", `/api/changes/${fixture.changeId}/comments/${id}/resolve`)).status).toBe(200);
  return id;
}

/** A new key of the owner for the fixture's workspace "matrix". */
async function ownersKey(fixture: Fixture): Promise<string> {
  const key = await asOwner("POST", `/api/workspaces/${fixture.project.path}/workspaces/matrix/keys`, {});
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  return key.body.key.id;
}

/** The status of a Server-Sent Events answer (and its JSON body when it is a refusal); the stream is closed unread. */
async function streamStatus(path: string, token?: string): Promise<{ status: number; body: unknown }> {
  const controller = new AbortController();
  const res = await fetchInProcess(`${TEST_ORIGIN}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: controller.signal,
  });
  const body = (res.headers.get("content-type") ?? "").includes("json") ? await res.json() : undefined;
  controller.abort();
  await res.body?.cancel().catch(() => undefined);
  return { status: res.status, body };
}

/** A deletion request: a caller expected to succeed deletes a fresh project, so the fixture stays. */
async function deletion(fixture: Fixture, succeeds: boolean, suffix: string): Promise<Request> {
  const target = succeeds ? await freshProject(fixture.project.visibility as "private" | "public") : fixture.project;
  return { path: `/api/projects/${target.path}${suffix}`, body: { confirm: target.path } };
}

const ROWS: Record<string, Row | CoveredElsewhere> = {
  "GET /api/projects/{namespace}/{slug}": { kind: "public", need: "read", request: (f) => ({ path: P(f) }) },
  "GET /api/projects/{namespace}/{slug}/activity": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/activity") }),
  },
  "GET /api/projects/{namespace}/{slug}/branches": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/branches") }),
  },
  "POST /api/projects/{namespace}/{slug}/branches": {
    kind: "authed",
    need: "write",
    denied: 404,
    request: (f) => ({ path: P(f, "/branches"), body: { name: unique("b") } }),
  },
  "DELETE /api/projects/{namespace}/{slug}/branches/{name}": {
    kind: "authed",
    need: "write",
    denied: 404,
    request: async (f) => {
      const name = unique("gone");
      expect((await asOwner("POST", P(f, "/branches"), { name })).status).toBe(201);
      return { path: P(f, `/branches/${name}`) };
    },
  },
  // docs/contracts.md#reading-code
  "GET /api/projects/{namespace}/{slug}/branches/{name}": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/branches/main") }),
  },
  "GET /api/projects/{namespace}/{slug}/commits/{sha}": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, `/commits/${f.project.commit}`) }),
  },
  "GET /api/projects/{namespace}/{slug}/compare": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, `/compare?base=${f.project.commit}&head=main`) }),
  },
  "GET /api/projects/{namespace}/{slug}/search": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/search?q=hi") }),
  },
  "GET /api/projects/{namespace}/{slug}/blame": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/blame?path=README.md") }),
  },
  "GET /api/projects/{namespace}/{slug}/archive": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/archive") }),
  },
  "GET /api/projects/{namespace}/{slug}/raw": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/raw?path=README.md") }),
  },
  "GET /api/projects/{namespace}/{slug}/contents": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/contents?path=README.md") }),
  },
  "GET /api/projects/{namespace}/{slug}/archive-link": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/archive-link") }),
  },
  "GET /api/projects/{namespace}/{slug}/tags": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/tags") }),
  },
  "POST /api/projects/{namespace}/{slug}/tags": {
    kind: "authed",
    need: "write",
    denied: 404,
    request: (f) => ({ path: P(f, "/tags"), body: { name: unique("t") } }),
  },
  "DELETE /api/projects/{namespace}/{slug}/tags/{name}": {
    kind: "authed",
    need: "admin",
    request: async (f) => {
      const name = unique("gone");
      expect((await asOwner("POST", P(f, "/tags"), { name })).status).toBe(201);
      return { path: P(f, `/tags/${name}`) };
    },
  },
  "GET /api/projects/{namespace}/{slug}/content": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/content?path=README.md") }),
  },
  "GET /api/projects/{namespace}/{slug}/files": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/files") }),
  },
  "GET /api/projects/{namespace}/{slug}/languages": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/languages") }),
  },
  "GET /api/projects/{namespace}/{slug}/log": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/log") }),
  },
  "GET /api/projects/{namespace}/{slug}/evaluations": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/evaluations") }),
  },
  "GET /api/projects/{namespace}/{slug}/provenance": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/provenance") }),
  },
  "GET /api/projects/{namespace}/{slug}/permission": {
    kind: "authed",
    need: "read",
    request: (f) => ({ path: P(f, "/permission") }),
  },
  "GET /api/projects/{namespace}/{slug}/changes": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/changes") }),
  },
  "GET /api/projects/{namespace}/{slug}/changes/{number}": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, `/changes/${f.changeNumber}`) }),
  },
  "GET /api/projects/{projectId}/changes": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: `/api/projects/${f.project.id}/changes` }),
  },
  "GET /api/projects/{namespace}/{slug}/queue": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/queue") }),
  },
  "POST /api/projects/{namespace}/{slug}/changes/merge-batch": {
    kind: "user",
    need: "write",
    request: (f) => ({ path: P(f, "/changes/merge-batch"), body: { changeIds: [crypto.randomUUID()] } }),
  },
  "POST /api/projects/{projectId}/changes/merge-batch": {
    kind: "user",
    need: "write",
    request: (f) => ({
      path: `/api/projects/${f.project.id}/changes/merge-batch`,
      body: { changeIds: [crypto.randomUUID()] },
    }),
  },
  "GET /api/projects/{namespace}/{slug}/collaborators": {
    kind: "authed",
    need: "admin",
    request: (f) => ({ path: P(f, "/collaborators") }),
  },
  "PUT /api/projects/{namespace}/{slug}/collaborators/{username}": {
    kind: "user",
    need: "admin",
    request: (f) => ({ path: P(f, `/collaborators/${extraUser.username}`), body: { permission: "read" } }),
  },
  "DELETE /api/projects/{namespace}/{slug}/collaborators/{username}": {
    kind: "user",
    need: "admin",
    request: async (f) => {
      expect((await asOwner("PUT", P(f, `/collaborators/${extraUser.username}`), { permission: "read" })).status).toBe(
        200,
      );
      return { path: P(f, `/collaborators/${extraUser.username}`) };
    },
  },
  "GET /api/projects/{namespace}/{slug}/issues": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/issues") }),
  },
  "POST /api/projects/{namespace}/{slug}/issues": {
    kind: "authed",
    need: "read",
    request: (f) => ({ path: P(f, "/issues"), body: { title: "from the matrix" } }),
  },
  "GET /api/projects/{namespace}/{slug}/issues/{number}": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, `/issues/${f.issueNumber}`) }),
  },
  "PATCH /api/projects/{namespace}/{slug}/issues/{number}": {
    kind: "user",
    need: "write",
    request: (f) => ({ path: P(f, `/issues/${f.issueNumber}`), body: { labels: ["triaged"] } }),
  },
  "POST /api/projects/{namespace}/{slug}/issues/{number}/close": {
    kind: "user",
    need: "write",
    success: 302,
    request: (f) => ({ path: P(f, `/issues/${f.issueNumber}/close`), body: {} }),
  },
  "GET /api/projects/{namespace}/{slug}/issues/{number}/comments": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, `/issues/${f.issueNumber}/comments`) }),
  },
  "POST /api/projects/{namespace}/{slug}/issues/{number}/comments": {
    kind: "authed",
    need: "read",
    request: (f) => ({ path: P(f, `/issues/${f.issueNumber}/comments`), body: { body: "a comment" } }),
  },
  "GET /api/projects/{namespace}/{slug}/deployments": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: P(f, "/deployments") }),
  },
  "GET /api/deployments/{id}": { coveredBy: "tests/deployments/routes.test.ts (the deployment's own project decides)" },
  "POST /api/deployments/{id}/approve": {
    coveredBy: "tests/deployments/routes.test.ts (users with write access; agents 401)",
  },
  "POST /api/deployments/{id}/retry": { coveredBy: "tests/deployments/routes.test.ts (write access; agents allowed)" },
  // Secret routes answer agents 403 (not the 401 of user-only routes) and anonymous callers 401 even on public projects.
  "GET /api/projects/{namespace}/{slug}/secrets": { coveredBy: "server/secrets/secrets.test.ts" },
  "POST /api/projects/{namespace}/{slug}/secrets": { coveredBy: "server/secrets/secrets.test.ts" },
  "PUT /api/projects/{namespace}/{slug}/secrets/{name}": { coveredBy: "server/secrets/secrets.test.ts" },
  "DELETE /api/projects/{namespace}/{slug}/secrets/{name}": { coveredBy: "server/secrets/secrets.test.ts" },
  "POST /api/projects/{namespace}/{slug}/secrets/{name}/delete": { coveredBy: "server/secrets/secrets.test.ts" },
  "GET /api/projects/{namespace}/{slug}/webhooks": {
    kind: "public",
    need: "write",
    request: (f) => ({ path: P(f, "/webhooks") }),
  },
  "POST /api/projects/{namespace}/{slug}/webhooks": {
    kind: "public",
    need: "write",
    request: (f) => ({ path: P(f, "/webhooks"), body: { url: "http://127.0.0.1:9/y", events: "issue.opened" } }),
  },
  "DELETE /api/projects/{namespace}/{slug}/webhooks/{id}": {
    kind: "public",
    need: "write",
    request: async (f) => ({ path: P(f, `/webhooks/${await webhookOf(f.project)}`) }),
  },
  "POST /api/projects/{namespace}/{slug}/webhooks/{id}/delete": {
    kind: "public",
    need: "write",
    success: 302,
    request: async (f) => ({ path: P(f, `/webhooks/${await webhookOf(f.project)}/delete`) }),
  },
  "POST /api/projects/{namespace}/{slug}/webhooks/{id}/toggle": {
    kind: "public",
    need: "write",
    request: async (f) => ({ path: P(f, `/webhooks/${await webhookOf(f.project)}/toggle`), body: { active: false } }),
  },
  "GET /api/projects/{namespace}/{slug}/webhooks/{id}/deliveries": {
    kind: "public",
    need: "write",
    request: async (f) => ({ path: P(f, `/webhooks/${await webhookOf(f.project)}/deliveries`) }),
  },
  "GET /api/workspaces/{namespace}/{slug}/workspaces": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: `/api/workspaces/${f.project.path}/workspaces` }),
  },
  "POST /api/workspaces/{namespace}/{slug}/workspaces": {
    kind: "authed",
    need: "write",
    request: (f) => ({ path: `/api/workspaces/${f.project.path}/workspaces`, body: { name: unique("ws") } }),
  },
  "GET /api/changes/{id}/diff": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: `/api/changes/${f.changeId}/diff` }),
  },
  "GET /api/changes/{id}": { kind: "public", need: "read", request: (f) => ({ path: `/api/changes/${f.changeId}` }) },
  "GET /api/changes/{id}/reviews": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: `/api/changes/${f.changeId}/reviews` }),
  },
  "GET /api/changes/{id}/comments": {
    kind: "public",
    need: "read",
    request: (f) => ({ path: `/api/changes/${f.changeId}/comments` }),
  },
  "POST /api/changes/{id}/comments": {
    kind: "authed",
    need: "read",
    keyMay: true,
    request: (f) => ({ path: `/api/changes/${f.changeId}/comments`, body: { body: "looks fine" } }),
  },
  "POST /api/changes/{id}/reviews": {
    kind: "user",
    need: "write",
    request: (f) => ({ path: `/api/changes/${f.changeId}/reviews`, body: { verdict: "comment", comment: "noted" } }),
  },
  // The change's life: each caller expected to get through acts on a change of its own, so the fixture's stays open.
  "POST /api/changes/{id}/evaluate": {
    kind: "user",
    need: "write",
    request: (f) => ({ path: `/api/changes/${f.changeId}/evaluate` }),
  },
  "POST /api/changes/{id}/merge": {
    kind: "user",
    need: "write",
    request: async (f, succeeds) => ({ path: `/api/changes/${succeeds ? await freshChange(f) : f.changeId}/merge` }),
  },
  "POST /api/changes/{id}/reject": {
    kind: "user",
    need: "write",
    request: async (f, succeeds) => ({ path: `/api/changes/${succeeds ? await freshChange(f) : f.changeId}/reject` }),
  },
  "POST /api/changes/{id}/revert": {
    kind: "user",
    need: "write",
    request: async (f, succeeds) => ({ path: `/api/changes/${succeeds ? await mergedChange(f) : f.changeId}/revert` }),
  },
  // The merge queue (docs/contracts.md#merge-queue): writers with a user identity, as merge.
  "POST /api/changes/{id}/queue": {
    kind: "user",
    need: "write",
    success: 202,
    request: async (f, succeeds) => ({
      path: `/api/changes/${succeeds ? await freshChange(f) : f.changeId}/queue`,
      body: {},
    }),
  },
  "DELETE /api/changes/{id}/queue": {
    kind: "user",
    need: "write",
    request: async (f, succeeds) => ({ path: `/api/changes/${succeeds ? await queuedChange(f) : f.changeId}/queue` }),
  },
  "POST /api/changes/{id}/queue/delete": {
    kind: "user",
    need: "write",
    request: async (f, succeeds) => ({
      path: `/api/changes/${succeeds ? await queuedChange(f) : f.changeId}/queue/delete`,
      body: {},
    }),
  },
  // Threads: writers, or the comment's author (here the owner, a writer anyway).
  "POST /api/changes/{id}/comments/{commentId}/resolve": {
    kind: "authed",
    need: "write",
    request: async (f) => ({ path: `/api/changes/${f.changeId}/comments/${await ownersComment(f, false)}/resolve` }),
  },
  "POST /api/changes/{id}/comments/{commentId}/unresolve": {
    kind: "authed",
    need: "write",
    request: async (f) => ({ path: `/api/changes/${f.changeId}/comments/${await ownersComment(f, true)}/unresolve` }),
  },
  // Event streams (docs/contracts.md#agents): read access, as GET /api/changes/{id}.
  "GET /api/changes/{id}/events": {
    kind: "public",
    need: "read",
    stream: true,
    request: (f) => ({ path: `/api/changes/${f.changeId}/events` }),
  },
  // Workspace keys (docs/contracts.md#agents): the fixture's workspace "matrix" is the owner's, so a
  // writer who is neither its creator nor an admin does not find it (404); revoking is for the key's
  // creator (the owner, through any of its credentials) or a project admin.
  "POST /api/workspaces/{namespace}/{slug}/workspaces/{workspace}/keys": {
    kind: "authed",
    need: "admin",
    deniedAt: { write: 404 },
    request: (f) => ({ path: `/api/workspaces/${f.project.path}/workspaces/matrix/keys`, body: { ttlMinutes: 5 } }),
  },
  "GET /api/workspaces/{namespace}/{slug}/workspaces/{workspace}/keys": {
    kind: "authed",
    need: "write",
    request: (f) => ({ path: `/api/workspaces/${f.project.path}/workspaces/matrix/keys` }),
  },
  "DELETE /api/workspace-keys/{id}": {
    kind: "authed",
    need: "admin",
    request: async (f) => ({ path: `/api/workspace-keys/${await ownersKey(f)}` }),
  },

  "PATCH /api/projects/{namespace}/{slug}": {
    kind: "user",
    need: "admin",
    // The description only: a rename would move the fixture for the callers after this one.
    request: (f) => ({ path: P(f), body: { description: unique("described ") } }),
  },
  "DELETE /api/projects/{namespace}/{slug}": {
    kind: "user",
    need: "owner",
    denied: 404,
    request: (f, succeeds) => deletion(f, succeeds, ""),
  },
  "POST /api/projects/{namespace}/{slug}/delete": {
    kind: "user",
    need: "owner",
    denied: 404,
    request: (f, succeeds) => deletion(f, succeeds, "/delete"),
  },

  // Access that turns on more than a level on one project.
  "POST /api/projects/{namespace}/{slug}/changes": {
    coveredBy: "tests/changes/changes.test.ts (the workspace's creator or a project admin proposes)",
  },
  "POST /api/projects/{projectId}/changes": { coveredBy: "tests/changes/changes.test.ts" },
  "POST /api/projects/conflicts/{id}/resolve": { coveredBy: "tests/changes/conflicts.test.ts" },
  "POST /api/workspaces/{name}/commit": {
    coveredBy: "server/workspaces tests (the workspace's creator or a project admin)",
  },
  "POST /api/changes/{id}/host-pr": {
    coveredBy: "tests/imports/host-pr.test.ts (needs a project imported from the provider)",
  },
  // Imports and sync: only in the caller's own namespace, on a project imported from the provider.
  "POST /api/projects/{namespace}/{slug}/import": { coveredBy: "tests/imports/imports.test.ts" },
  "GET /api/projects/{namespace}/{slug}/import/status": {
    coveredBy: "tests/imports/imports.test.ts and tests/imports/lifecycle.test.ts",
  },
  "POST /api/projects/{namespace}/{slug}/import/retry": { coveredBy: "tests/imports/lifecycle.test.ts" },
  "POST /api/projects/{namespace}/{slug}/import/cancel": { coveredBy: "tests/imports/lifecycle.test.ts" },
  "POST /api/projects/{namespace}/{slug}/sync": { coveredBy: "tests/imports/sync.test.ts" },
  "GET /api/projects/{namespace}/{slug}/sync/status": { coveredBy: "tests/imports/sync.test.ts" },
  "POST /api/projects/{namespace}/{slug}/sync/settings": { coveredBy: "tests/imports/sync.test.ts" },
  "GET /api/projects/{namespace}/{slug}/sync/history": { coveredBy: "tests/imports/sync.test.ts" },
  "GET /api/projects/{namespace}/{slug}/import/stream": {
    coveredBy: "tests/imports/lifecycle.test.ts (SSE; read access)",
  },
  "GET /api/projects/{namespace}/{slug}/sync/stream": { coveredBy: "tests/imports/sync.test.ts (SSE; read access)" },
  "POST /api/providers/github/webhook": {
    coveredBy: "tests/imports/sync.test.ts (no caller: the X-Hub-Signature-256 signature decides)",
  },
  // Not about a project.
  "GET /api/projects": { coveredBy: "tests/access/project-access.test.ts (lists what the caller can read)" },
  "POST /api/projects": { coveredBy: "tests/access/project-access.test.ts (org write to create in an org)" },
  "GET /health": { coveredBy: "server/health tests (the liveness route, no authentication)" },
  "GET /api/health": { coveredBy: "server/health tests" },
  "GET /api/openapi.json": { coveredBy: "tests/http/openapi-document.test.ts (public)" },
  "POST /api/auth/dev-login": { coveredBy: "server/auth/sessions.test.ts (DEV_LOGIN=1 only)" },
  "GET /api/health/simple": { coveredBy: "server/health tests" },
  "GET /api/users/me": { coveredBy: "server/auth/credentials.test.ts" },
  "PATCH /api/users/me": { coveredBy: "tests/web/display-names.test.ts (the caller's own display name)" },
  "DELETE /api/users/me": { coveredBy: "server/deletion/deletion.test.ts" },
  "POST /api/users/me/legacy-token/disable": { coveredBy: "server/users/legacy.test.ts" },
  "POST /api/users/me/rotate-token": { coveredBy: "server/users/legacy.test.ts" },
  "GET /api/users/me/tokens": { coveredBy: "server/users/tokens.test.ts" },
  "POST /api/users/me/tokens": { coveredBy: "server/users/tokens.test.ts" },
  "DELETE /api/users/me/tokens/{id}": { coveredBy: "server/users/tokens.test.ts" },
  "GET /api/agents": { coveredBy: "server/agents/agents.test.ts" },
  "POST /api/agents": { coveredBy: "server/agents/agents.test.ts" },
  "GET /api/agents/{id}": { coveredBy: "server/agents/agents.test.ts" },
  "DELETE /api/agents/{id}": { coveredBy: "server/agents/agents.test.ts" },
  "POST /api/admin/users": { coveredBy: "server/auth/credentials.test.ts" },
  "GET /api/admin/jobs": { coveredBy: "server/jobs tests" },
  "GET /api/admin/jobs/{id}": { coveredBy: "server/jobs tests" },
  "POST /api/admin/jobs/{id}/cancel": { coveredBy: "server/jobs tests" },
  "GET /api/admin/audit": { coveredBy: "tests/admin/audit.test.ts" },
  "GET /api/admin/caches": { coveredBy: "tests/admin/caches.test.ts (administrators only)" },
  // An evaluation run exists only while a background evaluator runs: the run's routes are asked
  // as each caller there (read for the log, write to cancel; 404 for a run of another change).
  "GET /api/changes/{id}/evaluations/{runId}/log": { coveredBy: "tests/changes/evaluation-runs.test.ts" },
  "POST /api/changes/{id}/evaluations/{runId}/cancel": { coveredBy: "tests/changes/evaluation-runs.test.ts" },
  "GET /api/admin/audit/verify": { coveredBy: "tests/admin/audit.test.ts" },
  "GET /api/admin/metrics": { coveredBy: "tests/admin/metrics.test.ts" },
  "POST /api/admin/backups": { coveredBy: "tests/admin/backup.test.ts" },
  "GET /api/admin/backups": { coveredBy: "tests/admin/backup.test.ts" },
  "GET /api/admin/backups/{id}": { coveredBy: "tests/admin/backup.test.ts" },
  "GET /api/admin/restore/{id}": { coveredBy: "tests/admin/backup.test.ts" },
  "GET /api/admin/deletion-jobs": { coveredBy: "tests/admin/deletion-jobs.test.ts" },
  "POST /api/admin/deletion-jobs/{id}/redrive": { coveredBy: "tests/admin/deletion-jobs.test.ts" },
  "GET /api/admin/backups/{id}/archive": { coveredBy: "tests/admin/backup.test.ts" },
  "POST /api/admin/restore": { coveredBy: "tests/admin/backup.test.ts" },
  "GET /api/orgs": { coveredBy: "tests/access/orgs.test.ts" },
  "POST /api/orgs": { coveredBy: "tests/access/orgs.test.ts" },
  "GET /api/orgs/{org}": { coveredBy: "tests/access/orgs.test.ts" },
  "GET /api/orgs/{org}/members": { coveredBy: "tests/access/orgs.test.ts" },
  "PUT /api/orgs/{org}/members/{username}": { coveredBy: "tests/access/orgs.test.ts" },
  "DELETE /api/orgs/{org}/members/{username}": { coveredBy: "tests/access/orgs.test.ts" },
  "GET /api/orgs/{org}/teams": { coveredBy: "tests/access/orgs.test.ts" },
  "POST /api/orgs/{org}/teams": { coveredBy: "tests/access/orgs.test.ts" },
  "DELETE /api/orgs/{org}/teams/{team}": { coveredBy: "tests/access/orgs.test.ts" },
  "GET /api/orgs/{org}/teams/{team}/members": { coveredBy: "tests/access/orgs.test.ts" },
  "PUT /api/orgs/{org}/teams/{team}/members/{username}": { coveredBy: "tests/access/orgs.test.ts" },
  "DELETE /api/orgs/{org}/teams/{team}/members/{username}": { coveredBy: "tests/access/orgs.test.ts" },
  "GET /api/orgs/{org}/teams/{team}/projects": { coveredBy: "tests/access/project-access.test.ts" },
  "PUT /api/orgs/{org}/teams/{team}/projects/{slug}": { coveredBy: "tests/access/project-access.test.ts" },
  "DELETE /api/orgs/{org}/teams/{team}/projects/{slug}": { coveredBy: "tests/access/project-access.test.ts" },
};

/** A kind of caller: its credential and the level it holds on every matrix project. */
interface Caller {
  name: string;
  token?: string;
  level: AccessLevel;
  agent?: boolean;
  readOnly?: boolean;
  /** A workspace key of the fixture's change's workspace: reads as a reader, writes only there. */
  workspaceKey?: boolean;
}

const callers: Caller[] = [];

function expectedStatus(
  row: Row,
  method: Method,
  caller: Caller,
  visibility: "private" | "public",
  success: number,
): number {
  if (!caller.token && row.kind !== "public") return 401;
  if (caller.workspaceKey) {
    if (row.kind === "user") return method === "GET" ? 401 : 403;
    if (method === "GET") return atLeast("read", row.need) ? success : 403;
    return row.keyMay ? success : 403;
  }
  if (caller.agent && row.kind === "user") return 401;
  if (caller.readOnly && method !== "GET") return 403;
  const level: AccessLevel = visibility === "public" && !atLeast(caller.level, "read") ? "read" : caller.level;
  if (level === "none") return 404;
  if (!atLeast(level, row.need)) return row.deniedAt?.[level] ?? row.denied ?? 403;
  return success;
}

beforeAll(async () => {
  const users = await Promise.all(Array.from({ length: 12 }, () => createTestUser()));
  const [
    orgAdmin,
    orgWriter,
    orgReader,
    teamReader,
    teamWriter,
    teamAdmin,
    collabReader,
    collabWriter,
    collabAdmin,
    stranger,
  ] = users;
  [owner, extraUser] = [users[10], users[11]];
  org = unique("matrix");
  expect((await asOwner("POST", "/api/orgs", { slug: org })).status).toBe(201);
  const roles: Array<[User, string]> = [
    [orgAdmin, "admin"],
    [orgWriter, "write"],
    [orgReader, "read"],
    [teamReader, "read"],
    [teamWriter, "read"],
    [teamAdmin, "read"],
  ];
  for (const [user, role] of roles)
    expect((await asOwner("PUT", `/api/orgs/${org}/members/${user.username}`, { role })).status).toBe(200);
  const teams: Array<[string, User, GrantedLevel]> = [
    ["readers", teamReader, "read"],
    ["writers", teamWriter, "write"],
    ["admins", teamAdmin, "admin"],
  ];
  for (const [team, user] of teams) {
    expect((await asOwner("POST", `/api/orgs/${org}/teams`, { slug: team })).status).toBe(201);
    expect((await asOwner("PUT", `/api/orgs/${org}/teams/${team}/members/${user.username}`)).status).toBe(200);
  }
  const collaborators: Array<[User, GrantedLevel]> = [
    [collabReader, "read"],
    [collabWriter, "write"],
    [collabAdmin, "admin"],
  ];
  grantAll = async (project) => {
    for (const [team, , permission] of teams)
      expect(
        (await asOwner("PUT", `/api/orgs/${org}/teams/${team}/projects/${project.slug}`, { permission })).status,
      ).toBe(200);
    for (const [user, permission] of collaborators)
      expect(
        (await asOwner("PUT", `/api/projects/${project.path}/collaborators/${user.username}`, { permission })).status,
      ).toBe(200);
  };

  const agentOf = async (user: User) =>
    (await call("POST", "/api/agents", { token: user.token, body: { name: "bot" } })).body.token as string;
  const { cookie } = await createTestSession(owner.username);
  const oauth = ((await runSvcCommand(["oauth:grant", owner.username, "--scope", "read_write"])) as { token: string })
    .token;
  callers.push(
    { name: "anonymous", level: "none" },
    { name: "stranger", token: stranger.token, level: "none" },
    { name: "org read", token: orgReader.token, level: "read" },
    { name: "org write", token: orgWriter.token, level: "write" },
    { name: "org admin", token: orgAdmin.token, level: "admin" },
    { name: "team read", token: teamReader.token, level: "read" },
    { name: "team write", token: teamWriter.token, level: "write" },
    { name: "team admin", token: teamAdmin.token, level: "admin" },
    { name: "collaborator read", token: collabReader.token, level: "read" },
    { name: "collaborator write", token: collabWriter.token, level: "write" },
    { name: "collaborator admin", token: collabAdmin.token, level: "admin" },
    { name: "owner", token: owner.token, level: "owner" },
    { name: "owner's OAuth grant", token: oauth, level: "owner" },
    {
      name: "owner's read token",
      token: await createTestToken(cookie, { scope: "read" }),
      level: "owner",
      readOnly: true,
    },
    { name: "owner's agent", token: await agentOf(owner), level: "owner", agent: true },
    { name: "team writer's agent", token: await agentOf(teamWriter), level: "write", agent: true },
    { name: "collaborator reader's agent", token: await agentOf(collabReader), level: "read", agent: true },
    { name: "stranger's agent", token: await agentOf(stranger), level: "none", agent: true },
  );
});

type Document = { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
const openApiDocument = async () => (await call("GET", "/api/openapi.json")).body as Document;

async function operations(): Promise<Array<{ key: string; method: Method; success: number }>> {
  const doc = await openApiDocument();
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase() as Method,
      success: Number(Object.keys(op.responses).find((status) => status.startsWith("2"))),
    })),
  );
}

describe("the authorization matrix", () => {
  it("has a row for every operation of the OpenAPI document, and no row for one that is gone", async () => {
    const keys = (await operations()).map((op) => op.key);
    expect(
      keys.filter((key) => !(key in ROWS)),
      "operations without a row",
    ).toEqual([]);
    expect(
      Object.keys(ROWS).filter((key) => !keys.includes(key)),
      "rows without an operation",
    ).toEqual([]);
  });

  for (const visibility of ["private", "public"] as const) {
    it(`answers every caller on a ${visibility} project as the access model says`, async () => {
      const fixture: Fixture = {
        project: await freshProject(visibility),
        held: await freshProject(visibility, { ".svc/policy.yml": "protection:\n  locked: true\n" }),
        issueNumber: 0,
        changeId: "",
        changeNumber: 0,
      };
      const issue = await asOwner("POST", P(fixture, "/issues"), { title: "the matrix issue" });
      fixture.issueNumber = issue.body.issue.number;
      await asOwner("POST", `/api/workspaces/${fixture.project.path}/workspaces`, { name: "matrix" });
      await asOwner("POST", "/api/workspaces/matrix/commit", {
        projectId: fixture.project.id,
        message: "m",
        files: { "m.txt": "m\n" },
      });
      const change = (await asOwner("POST", P(fixture, "/changes"), { workspace: "matrix" })).body.change;
      fixture.changeId = change.id;
      fixture.changeNumber = change.number;
      const key = await asOwner("POST", `/api/workspaces/${fixture.project.path}/workspaces/matrix/keys`, {});
      const keyCaller: Caller = {
        name: "owner's workspace key",
        token: key.body.plaintext,
        level: "read",
        workspaceKey: true,
      };

      const mismatches: string[] = [];
      const conformance = conformanceChecker(await openApiDocument());
      let asked = 0;
      for (const op of await operations()) {
        const row = ROWS[op.key];
        if (!row || "coveredBy" in row) continue;
        for (const caller of [...callers, keyCaller]) {
          const success = row.success ?? op.success;
          const expected = expectedStatus(row, op.method, caller, visibility, success);
          const request = await row.request(fixture, expected === success);
          const options: CallOptions = { token: caller.token, body: request.body };
          const res = row.stream
            ? await streamStatus(request.path, caller.token)
            : await call(op.method, request.path, options);
          asked++;
          conformance.check(op.method, request.path, res.status);
          if (res.status !== expected)
            mismatches.push(
              `${op.key} as ${caller.name}: ${res.status} (expected ${expected}) ${JSON.stringify(res.body).slice(0, 120)}`,
            );
        }
      }
      console.log(`[matrix] ${visibility}: ${asked} requests`);
      expect(mismatches).toEqual([]);
      expect(conformance.findings(), "statuses the document does not list").toEqual([]);
    }, 300_000);
  }
});
