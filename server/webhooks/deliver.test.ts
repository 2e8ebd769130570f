import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { recordEvent } from "@/server/events/record";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { attemptDelivery, deliveryIdFor, pruneDeliveryLogs, webhooksForEvent } from "./deliver";
import {
  WEBHOOK_DELIVERY_LOG_KEEP,
  WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
  WEBHOOK_MAX_ATTEMPTS,
  retryDelayMs,
} from "./policy";
import { startReceiver } from "./test-receiver";
import { useWebhookProject } from "./test-support";

// The delivery logic as plain service functions, against real receivers on 127.0.0.1.
useTestEnvironment({ ALLOW_PRIVATE_TARGETS: "1", WEBHOOK_RETRY_BASE_MS: "1000" });

const { ctx, createHook, openIssueEvent, deliveries, webhook, toggle } = useWebhookProject();
const openIssue = async (title: string) => (await openIssueEvent(title)).id;

describe("webhook delivery", () => {
  it("POSTs the signed JSON payload with the event and delivery headers", async () => {
    const hook = await createHook();
    const { id: eventId, occurredAt } = await openIssueEvent("Signed");
    const before = ctx.receiver.received.length;
    expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 1 })).toBe("delivered");
    const request = ctx.receiver.received[before];
    const expected = `sha256=${crypto.createHmac("sha256", hook.secret).update(request.body).digest("hex")}`;
    expect(request.headers["x-svc-signature"]).toBe(expected);
    expect(request.headers["x-svc-event"]).toBe("issue.opened");
    expect(request.headers["x-svc-delivery"]).toBe(deliveryIdFor(eventId, hook.id));
    expect(request.headers["content-type"]).toBe("application/json");
    const payload = JSON.parse(request.body);
    expect(payload).toEqual({
      id: eventId,
      kind: "issue.opened",
      project: {
        id: ctx.project.id,
        namespace: ctx.owner.username,
        slug: ctx.project.slug,
        path: `@${ctx.owner.username}/${ctx.project.slug}`,
      },
      actor: `user:${ctx.owner.id}`,
      occurredAt,
      data: expect.objectContaining({ title: "Signed", number: expect.any(Number) }),
    });
    const log = await deliveries(hook.id);
    expect(log[0]).toMatchObject({
      eventId,
      kind: "issue.opened",
      attempt: 1,
      succeeded: true,
      statusCode: 200,
      responseExcerpt: "ok",
      error: null,
    });
    expect(log[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it("asks for a retry after 5xx and network errors, with the same delivery id and bytes, logging every attempt", async () => {
    const hook = await createHook();
    const eventId = await openIssue("Retried");
    let calls = 0;
    ctx.receiver.setResponder(() => (++calls <= 2 ? { status: 500, body: "x".repeat(5000) } : { status: 204 }));
    const before = ctx.receiver.received.length;
    expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 1 })).toBe("retry");
    expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 2 })).toBe("retry");
    expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 3 })).toBe("delivered");
    ctx.receiver.setResponder(() => ({ status: 200, body: "ok" }));
    const requests = ctx.receiver.received.slice(before);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((r) => r.headers["x-svc-delivery"])).size).toBe(1);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    const log = await deliveries(hook.id);
    expect(
      log.map((d: { attempt: number; statusCode: number; succeeded: boolean }) => [
        d.attempt,
        d.statusCode,
        d.succeeded,
      ]),
    ).toEqual([
      [3, 204, true],
      [2, 500, false],
      [1, 500, false],
    ]);
    expect(log[1].responseExcerpt).toHaveLength(1024);

    const closed = await startReceiver();
    const deadUrl = closed.url;
    await closed.close();
    const dead = await createHook(deadUrl);
    expect(await attemptDelivery({ eventId, webhookId: dead.id, attempt: 1 })).toBe("retry");
    expect((await deliveries(dead.id))[0]).toMatchObject({
      statusCode: null,
      succeeded: false,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it("times out a receiver that does not answer and retries it", async () => {
    const hook = await createHook();
    const eventId = await openIssue("Slow");
    ctx.receiver.setResponder(() => "hang");
    process.env.WEBHOOK_TIMEOUT_MS = "300";
    try {
      expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 1 })).toBe("retry");
    } finally {
      delete process.env.WEBHOOK_TIMEOUT_MS;
      ctx.receiver.setResponder(() => ({ status: 200, body: "ok" }));
    }
    expect((await deliveries(hook.id))[0]).toMatchObject({
      succeeded: false,
      statusCode: null,
      error: "timed out after 300 ms",
    });
  });

  it("does not retry 4xx answers or the last attempt", async () => {
    const hook = await createHook();
    const eventId = await openIssue("Rejected");
    ctx.receiver.setResponder(() => ({ status: 410, body: "gone" }));
    expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 1 })).toBe("failed");
    ctx.receiver.setResponder(() => ({ status: 503 }));
    expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: WEBHOOK_MAX_ATTEMPTS })).toBe("failed");
    ctx.receiver.setResponder(() => ({ status: 200, body: "ok" }));
    expect((await webhook(hook.id)).failureStreak).toBe(2);
  });

  it("sends nothing to inactive webhooks and only subscribed kinds are matched", async () => {
    const inactive = await createHook();
    await toggle(inactive.id);
    const mergesOnly = await createHook(ctx.receiver.url, "change.merged");
    const eventId = await openIssue("Filtered");
    const targets = (await webhooksForEvent(eventId)).map((t) => t.webhookId);
    expect(targets).not.toContain(inactive.id);
    expect(targets).not.toContain(mergesOnly.id);
    const before = ctx.receiver.received.length;
    expect(await attemptDelivery({ eventId, webhookId: inactive.id, attempt: 1 })).toBe("skipped");
    expect(ctx.receiver.received.length).toBe(before);
    expect(await deliveries(inactive.id)).toEqual([]);
  });

  it(`auto-disables a webhook after ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} consecutive failed deliveries; a success resets the count`, async () => {
    const hook = await createHook();
    ctx.receiver.setResponder(() => ({ status: 400 }));
    const view = () => webhook(hook.id);
    try {
      for (let i = 0; i < WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES - 1; i++) {
        expect(await attemptDelivery({ eventId: await openIssue(`fail ${i}`), webhookId: hook.id, attempt: 1 })).toBe(
          "failed",
        );
      }
      ctx.receiver.setResponder(() => ({ status: 200 }));
      expect(await attemptDelivery({ eventId: await openIssue("success"), webhookId: hook.id, attempt: 1 })).toBe(
        "delivered",
      );
      expect((await view()).failureStreak).toBe(0);
      ctx.receiver.setResponder(() => ({ status: 400 }));
      for (let i = 0; i < WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES; i++) {
        expect(
          await attemptDelivery({ eventId: await openIssue(`fail again ${i}`), webhookId: hook.id, attempt: 1 }),
        ).toBe("failed");
      }
    } finally {
      ctx.receiver.setResponder(() => ({ status: 200, body: "ok" }));
    }
    const disabled = await view();
    expect(disabled).toMatchObject({
      active: false,
      failureStreak: WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
      disabledReason: expect.stringMatching(/consecutive failed deliveries/),
    });
    expect(disabled.disabledAt).toBeTruthy();
    expect(await attemptDelivery({ eventId: await openIssue("after disable"), webhookId: hook.id, attempt: 1 })).toBe(
      "skipped",
    );
    const reenabled = await toggle(hook.id);
    expect(reenabled.body.active).toBe(true);
    expect(await view()).toMatchObject({ active: true, failureStreak: 0, disabledAt: null, disabledReason: null });
  });

  it("refuses private targets at delivery time when the operator has not allowed them (no retry)", async () => {
    const hook = await createHook();
    const eventId = await openIssue("Policy");
    const before = ctx.receiver.received.length;
    process.env.ALLOW_PRIVATE_TARGETS = "";
    try {
      expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 1 })).toBe("failed");
    } finally {
      process.env.ALLOW_PRIVATE_TARGETS = "1";
    }
    expect(ctx.receiver.received.length).toBe(before);
    expect((await deliveries(hook.id))[0]).toMatchObject({
      succeeded: false,
      error: expect.stringMatching(/127\.0\.0\.1/),
    });
  });

  it("matches nothing for an unknown or malformed event id", async () => {
    expect(await webhooksForEvent(crypto.randomUUID())).toEqual([]);
    expect(await webhooksForEvent("undefined")).toEqual([]);
  });

  it("skips events whose webhook was deleted", async () => {
    const hook = await createHook();
    const eventId = await openIssue("Deleted hook");
    await call("DELETE", `${ctx.project.base}/webhooks/${hook.id}`, { token: ctx.owner.token });
    expect(await attemptDelivery({ eventId, webhookId: hook.id, attempt: 1 })).toBe("skipped");
  });

  it("prunes each webhook's log to its newest attempts", async () => {
    const hook = await createHook();
    const other = await createHook();
    const prisma = await db();
    const eventId = await openIssue("Pruned");
    const row = (webhookId: string, i: number) => ({
      webhookId,
      eventId,
      deliveryId: `dlv_${i}`,
      attempt: 1,
      durationMs: 1,
      succeeded: true,
      createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, i)),
    });
    await prisma.webhookDelivery.createMany({
      data: Array.from({ length: WEBHOOK_DELIVERY_LOG_KEEP + 5 }, (_, i) => row(hook.id, i)),
    });
    await prisma.webhookDelivery.createMany({ data: [row(other.id, 0)] });
    expect(await pruneDeliveryLogs()).toBeGreaterThanOrEqual(5);
    const kept = await prisma.webhookDelivery.findMany({
      where: { webhookId: hook.id },
      orderBy: { createdAt: "asc" },
    });
    expect(kept).toHaveLength(WEBHOOK_DELIVERY_LOG_KEEP);
    expect(kept[0].deliveryId).toBe("dlv_5");
    expect(await prisma.webhookDelivery.count({ where: { webhookId: other.id } })).toBe(1);
  });

  it("keeps the backoff exponential and capped", () => {
    expect([1, 2, 3].map(retryDelayMs)).toEqual([1000, 2000, 4000]);
    expect(retryDelayMs(30)).toBe(5 * 60_000);
  });
});

describe("event outbox", () => {
  it("events are stored with the state change (rolled back together)", async () => {
    const prisma = await db();
    const before = await prisma.domainEvent.count({ where: { projectId: ctx.project.id } });
    await expect(
      prisma.$transaction(async (tx) => {
        await recordEvent(tx, { projectId: ctx.project.id, kind: "issue.opened", actor: "system" });
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await prisma.domainEvent.count({ where: { projectId: ctx.project.id } })).toBe(before);
  });
});
