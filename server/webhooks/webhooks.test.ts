import { beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { createTestAgent, createTestProject, type TestUser } from "@/server/issues/test-fixtures";

// The outbound policy is on here (no private targets); the receivers in these tests are never called.
useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "" });

let owner: TestUser;
let writer: TestUser;
let reader: TestUser;
let stranger: TestUser;
let project: Awaited<ReturnType<typeof createTestProject>>;
let publicProject: Awaited<ReturnType<typeof createTestProject>>;

// Resolves to public addresses in the real world, but this machine has no DNS: use an IP literal.
const PUBLIC_URL = "http://93.184.216.34/hook";

beforeAll(async () => {
  [owner, writer, reader, stranger] = [
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
  ];
  project = await createTestProject(owner, {
    collaborators: [
      { user: writer, role: "write" },
      { user: reader, role: "read" },
    ],
  });
  publicProject = await createTestProject(owner, {
    visibility: "public",
    collaborators: [{ user: reader, role: "read" }],
  });
});

const create = (token: string | undefined, body: Record<string, unknown>, base = project.base) =>
  call("POST", `${base}/webhooks`, { token, body });

describe("POST /webhooks", () => {
  it("creates a webhook (events default *) and shows its secret only once", async () => {
    const res = await create(writer.token, { url: PUBLIC_URL });
    expect(res.status).toBe(201);
    expect(res.body.webhook).toMatchObject({
      url: PUBLIC_URL,
      events: "*",
      active: true,
      failureStreak: 0,
      disabledAt: null,
    });
    expect(res.body.webhook.secret).toMatch(/^whsec_.{40,}$/);
    const listed = await call("GET", `${project.base}/webhooks`, { token: writer.token });
    expect(listed.status).toBe(200);
    const hook = listed.body.webhooks.find((h: { id: string }) => h.id === res.body.webhook.id);
    expect(hook).toMatchObject({ url: PUBLIC_URL, active: true });
    expect(hook.secret).toBeUndefined();
    expect(listed.text).not.toContain(res.body.webhook.secret);
  });

  it("accepts a comma-separated subset of event kinds, normalized", async () => {
    const res = await create(owner.token, { url: PUBLIC_URL, events: " issue.closed, change.merged ,issue.closed" });
    expect(res.status).toBe(201);
    expect(res.body.webhook.events).toBe("change.merged,issue.closed");
    expect((await create(owner.token, { url: PUBLIC_URL, events: "deployment.failed" })).status).toBe(201);
  });

  it("refuses unknown event kinds, empty entries and malformed URLs with 400", async () => {
    for (const body of [
      { url: PUBLIC_URL, events: "issue.exploded" },
      { url: PUBLIC_URL, events: "" },
      { url: PUBLIC_URL, events: "issue.opened,,issue.closed" },
      { url: PUBLIC_URL, events: "*,issue.opened" },
      { url: PUBLIC_URL, events: "push" },
      {},
      { url: "not a url" },
      { url: "ftp://93.184.216.34/x" },
      { url: `http://93.184.216.34/${"x".repeat(2100)}` },
    ]) {
      const res = await create(owner.token, body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.error).toBeTruthy();
    }
  });

  it("refuses URLs to this service, loopback, private and link-local (metadata) addresses, also after DNS resolution", async () => {
    for (const url of [
      "http://svc.test/api/hook",
      "http://127.0.0.1:8080/",
      "http://localhost:3000/",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]/",
      "http://[fe80::1]/",
      "http://[::ffff:169.254.169.254]/",
      "http://[::7f00:1]/",
      "http://[2002:7f00:1::]/",
      "http://[2002:a9fe:a9fe::]/",
      "http://[2001:db8::1]/",
      "http://198.51.100.20/",
      "http://[fd00:ec2::254]/",
      "http://10.1.2.3/",
      "http://192.168.0.10/",
      "http://0.0.0.0/",
      "http://no-such-host.invalid/",
    ]) {
      const res = await create(owner.token, { url });
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatch(/refused/);
    }
  });

  it("refuses another name for this service's own address", async () => {
    process.env.BASE_URL = "http://93.184.216.34:3000";
    try {
      const res = await create(owner.token, { url: "http://93.184.216.34/loop" });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/itself/);
    } finally {
      process.env.BASE_URL = "http://svc.test";
    }
  });

  it("needs write access: 403 for readers and anonymous callers of public projects, 404 when the project cannot be read", async () => {
    expect((await create(reader.token, { url: PUBLIC_URL })).status).toBe(403);
    expect((await create(stranger.token, { url: PUBLIC_URL })).status).toBe(404);
    expect((await create(undefined, { url: PUBLIC_URL })).status).toBe(404);
    expect((await create(undefined, { url: PUBLIC_URL }, publicProject.base)).status).toBe(403);
    expect((await create(reader.token, { url: PUBLIC_URL }, publicProject.base)).status).toBe(403);
    expect((await create(owner.token, { url: PUBLIC_URL }, `/api/projects/@${owner.username}/missing`)).status).toBe(
      404,
    );
    const agent = await createTestAgent(owner);
    expect((await create(agent.token, { url: PUBLIC_URL })).status).toBe(201);
  });
});

describe("webhook management", () => {
  let hookId: string;
  const hookPath = (suffix = "") => `${project.base}/webhooks/${hookId}${suffix}`;
  beforeAll(async () => {
    hookId = (await create(owner.token, { url: PUBLIC_URL })).body.webhook.id;
  });

  it("GET /webhooks answers 403 for readers and 404 for strangers", async () => {
    expect((await call("GET", `${project.base}/webhooks`, { token: reader.token })).status).toBe(403);
    expect((await call("GET", `${project.base}/webhooks`, { token: stranger.token })).status).toBe(404);
    expect((await call("GET", `${project.base}/webhooks`)).status).toBe(404);
  });

  it("toggles active back and forth", async () => {
    const off = await call("POST", hookPath("/toggle"), { token: writer.token });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ id: hookId, active: false });
    const on = await call("POST", hookPath("/toggle"), { token: writer.token });
    expect(on.body).toEqual({ id: hookId, active: true });
    expect((await call("POST", hookPath("/toggle"), { token: reader.token })).status).toBe(403);
    expect((await call("POST", hookPath("/toggle"), { token: stranger.token })).status).toBe(404);
  });

  it("lists an empty delivery log for a new webhook", async () => {
    const res = await call("GET", hookPath("/deliveries"), { token: writer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deliveries: [] });
    expect((await call("GET", hookPath("/deliveries"), { token: reader.token })).status).toBe(403);
  });

  it("answers 404 for unknown, malformed and other projects' webhook ids", async () => {
    const elsewhere = (await create(owner.token, { url: PUBLIC_URL }, publicProject.base)).body.webhook.id;
    for (const id of [crypto.randomUUID(), "not-a-uuid", elsewhere]) {
      expect((await call("POST", `${project.base}/webhooks/${id}/toggle`, { token: owner.token })).status, id).toBe(
        404,
      );
      expect((await call("GET", `${project.base}/webhooks/${id}/deliveries`, { token: owner.token })).status, id).toBe(
        404,
      );
      expect((await call("DELETE", `${project.base}/webhooks/${id}`, { token: owner.token })).status, id).toBe(404);
    }
  });

  it("DELETE removes the webhook (200 {deleted, id}); a second delete is 404", async () => {
    expect((await call("DELETE", hookPath(), { token: reader.token })).status).toBe(403);
    const res = await call("DELETE", hookPath(), { token: writer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, id: hookId });
    expect((await call("DELETE", hookPath(), { token: writer.token })).status).toBe(404);
    const listed = await call("GET", `${project.base}/webhooks`, { token: owner.token });
    expect(listed.body.webhooks.map((h: { id: string }) => h.id)).not.toContain(hookId);
  });

  it("POST .../delete is the form alias: 302 back to the webhooks page", async () => {
    const id = (await create(owner.token, { url: PUBLIC_URL })).body.webhook.id;
    expect(
      (await call("POST", `${project.base}/webhooks/${id}/delete`, { token: reader.token, form: {} })).status,
    ).toBe(403);
    const res = await call("POST", `${project.base}/webhooks/${id}/delete`, { token: owner.token, form: {} });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/@${owner.username}/${project.slug}/settings/webhooks`);
    expect((await call("POST", `${project.base}/webhooks/${id}/delete`, { token: owner.token, form: {} })).status).toBe(
      404,
    );
  });
});
