import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inngest } from "@/inngest/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { createTestUser } from "@/tests/support/users";
import { createTestProject, type TestUser } from "@/server/issues/test-fixtures";
import { WEBHOOK_MAX_ATTEMPTS } from "./policy";
import { startReceiver, type Receiver } from "./test-receiver";

// End to end: an operation records a domain event, `svc/domain.event` starts the fan-out, the
// durable delivery jobs run on the embedded executor and reach a real receiver on 127.0.0.1.
useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "1", WEBHOOK_RETRY_BASE_MS: "1000" });
useTestJobs();

let owner: TestUser;
let project: Awaited<ReturnType<typeof createTestProject>>;
let receiver: Receiver;

beforeAll(async () => {
  owner = await createTestUser();
  project = await createTestProject(owner);
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

async function createHook(url = receiver.url, events = "*") {
  const res = await call("POST", `${project.base}/webhooks`, { token: owner.token, body: { url, events } });
  expect(res.status).toBe(201);
  return res.body.webhook as { id: string; secret: string };
}

/** Opens an issue (which publishes its issue.opened event after commit); answers the event id. */
async function openIssue(title: string): Promise<string> {
  const res = await call("POST", `${project.base}/issues`, { token: owner.token, body: { title } });
  expect(res.status).toBe(201);
  return (await call("GET", `${project.base}/activity?limit=1`, { token: owner.token })).body.events[0].id;
}

const deliveries = async (hookId: string) => (await call("GET", `${project.base}/webhooks/${hookId}/deliveries`, { token: owner.token })).body.deliveries;
const toggle = (hookId: string) => call("POST", `${project.base}/webhooks/${hookId}/toggle`, { token: owner.token });

describe("webhook delivery jobs", () => {
  it("delivers a signed payload that verifies over the raw body", async () => {
    const hook = await createHook();
    const before = receiver.received.length;
    const eventId = await openIssue("Delivered by a job");
    await drainJobs();
    const [request] = receiver.received.slice(before);
    expect(request).toBeDefined();
    const mac = crypto.createHmac("sha256", hook.secret).update(request.body).digest();
    const sent = Buffer.from(String(request.headers["x-svc-signature"]).replace(/^sha256=/, ""), "hex");
    expect(crypto.timingSafeEqual(mac, sent)).toBe(true);
    expect(JSON.parse(request.body)).toMatchObject({ id: eventId, kind: "issue.opened", data: { title: "Delivered by a job" } });
    expect(request.headers["x-svc-event"]).toBe("issue.opened");
    expect((await deliveries(hook.id)).map((d: { succeeded: boolean }) => d.succeeded)).toEqual([true]);
    await toggle(hook.id);
  });

  it("retries after 500s with backoff and the same delivery id; the log shows every attempt", async () => {
    const hook = await createHook();
    let calls = 0;
    receiver.setResponder(() => (++calls <= 2 ? { status: 500, body: "not yet" } : { status: 200, body: "ok" }));
    const before = receiver.received.length;
    try {
      await openIssue("Flaky receiver");
      await drainJobs();
      expect(receiver.received.length - before).toBe(1);
      await drainJobs({ fastForward: true });
    } finally {
      receiver.setResponder(() => ({ status: 200, body: "ok" }));
    }
    const requests = receiver.received.slice(before);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers["x-svc-delivery"])).size).toBe(1);
    const log = await deliveries(hook.id);
    expect(log.map((d: { attempt: number; statusCode: number; responseExcerpt: string }) => [d.attempt, d.statusCode, d.responseExcerpt])).toEqual([
      [3, 200, "ok"],
      [2, 500, "not yet"],
      [1, 500, "not yet"],
    ]);
    await toggle(hook.id);
  });

  it(`gives up after ${WEBHOOK_MAX_ATTEMPTS} attempts against a receiver that keeps failing`, async () => {
    const failing = await startReceiver(() => ({ status: 503, body: "down" }));
    try {
      const hook = await createHook(failing.url);
      await openIssue("Down receiver");
      await drainJobs({ fastForward: true });
      expect(failing.received).toHaveLength(WEBHOOK_MAX_ATTEMPTS);
      const log = await deliveries(hook.id);
      expect(log.map((d: { attempt: number }) => d.attempt)).toEqual(Array.from({ length: WEBHOOK_MAX_ATTEMPTS }, (_, i) => WEBHOOK_MAX_ATTEMPTS - i));
      const view = (await call("GET", `${project.base}/webhooks`, { token: owner.token })).body.webhooks.find((h: { id: string }) => h.id === hook.id);
      expect(view.failureStreak).toBe(1);
      await toggle(hook.id);
    } finally {
      await failing.close();
    }
  });

  it("an inactive webhook receives nothing, an unsubscribed kind is not sent, and one event reaches every matching webhook", async () => {
    const inactive = await startReceiver();
    const others = await Promise.all([startReceiver(), startReceiver()]);
    try {
      const off = await createHook(inactive.url);
      await toggle(off.id);
      const unsubscribed = await createHook(inactive.url, "change.merged");
      for (const other of others) await createHook(other.url, "issue.opened,issue.closed");
      await openIssue("Fan out");
      await drainJobs({ fastForward: true });
      expect(inactive.received).toHaveLength(0);
      expect(await deliveries(off.id)).toEqual([]);
      expect(await deliveries(unsubscribed.id)).toEqual([]);
      for (const other of others) expect(other.received).toHaveLength(1);
    } finally {
      await Promise.all([inactive, ...others].map((r) => r.close()));
    }
  });

  it("a domain event sent again (a sweep after a crash) does not deliver twice", async () => {
    const once = await startReceiver();
    try {
      await createHook(once.url);
      const eventId = await openIssue("Once");
      await drainJobs();
      await inngest.send({ name: "svc/domain.event", data: { eventId, projectId: project.id, kind: "issue.opened" } });
      await drainJobs({ fastForward: true });
      expect(once.received).toHaveLength(1);
    } finally {
      await once.close();
    }
  });
});
