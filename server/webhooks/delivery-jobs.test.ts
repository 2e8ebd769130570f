import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { inngest } from "@/server/jobs/client";
import { useTestEnvironment } from "@/tests/support/harness";
import { drainJobs, useTestJobs } from "@/tests/support/jobs";
import { WEBHOOK_MAX_ATTEMPTS } from "./policy";
import { startReceiver } from "./test-receiver";
import { useWebhookProject } from "./test-support";

// End to end: an operation records a domain event, `svc/domain.event` starts the fan-out, the
// durable delivery jobs run on the embedded executor and reach a real receiver on 127.0.0.1.
// Backoffs of a minute and more: a retry happens only when a test fast-forwards the job clock.
useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "1", WEBHOOK_RETRY_BASE_MS: "60000" });
useTestJobs();

const { ctx, createHook, openIssueEvent, deliveries, webhook, toggle } = useWebhookProject();
const openIssue = async (title: string) => (await openIssueEvent(title)).id;

describe("webhook delivery jobs", () => {
  it("delivers a signed payload that verifies over the raw body", async () => {
    const hook = await createHook();
    const before = ctx.receiver.received.length;
    const eventId = await openIssue("Delivered by a job");
    await drainJobs();
    const [request] = ctx.receiver.received.slice(before);
    expect(request).toBeDefined();
    const mac = crypto.createHmac("sha256", hook.secret).update(request.body).digest();
    const sent = Buffer.from(String(request.headers["x-svc-signature"]).replace(/^sha256=/, ""), "hex");
    expect(crypto.timingSafeEqual(mac, sent)).toBe(true);
    expect(JSON.parse(request.body)).toMatchObject({
      id: eventId,
      kind: "issue.opened",
      data: { title: "Delivered by a job" },
    });
    expect(request.headers["x-svc-event"]).toBe("issue.opened");
    expect((await deliveries(hook.id)).map((d: { succeeded: boolean }) => d.succeeded)).toEqual([true]);
    await toggle(hook.id);
  });

  it("retries after 500s with backoff and the same delivery id; the log shows every attempt", async () => {
    const hook = await createHook();
    let calls = 0;
    ctx.receiver.setResponder(() => (++calls <= 2 ? { status: 500, body: "not yet" } : { status: 200, body: "ok" }));
    const before = ctx.receiver.received.length;
    try {
      await openIssue("Flaky receiver");
      await drainJobs();
      expect(ctx.receiver.received.length - before).toBe(1);
      await drainJobs({ fastForward: true });
    } finally {
      ctx.receiver.setResponder(() => ({ status: 200, body: "ok" }));
    }
    const requests = ctx.receiver.received.slice(before);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers["x-svc-delivery"])).size).toBe(1);
    const log = await deliveries(hook.id);
    expect(
      log.map((d: { attempt: number; statusCode: number; responseExcerpt: string }) => [
        d.attempt,
        d.statusCode,
        d.responseExcerpt,
      ]),
    ).toEqual([
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
      expect(log.map((d: { attempt: number }) => d.attempt)).toEqual(
        Array.from({ length: WEBHOOK_MAX_ATTEMPTS }, (_, i) => WEBHOOK_MAX_ATTEMPTS - i),
      );
      expect((await webhook(hook.id)).failureStreak).toBe(1);
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
      await inngest.send({
        name: "svc/domain.event",
        data: { eventId, projectId: ctx.project.id, kind: "issue.opened" },
      });
      await drainJobs({ fastForward: true });
      expect(once.received).toHaveLength(1);
    } finally {
      await once.close();
    }
  });
});
