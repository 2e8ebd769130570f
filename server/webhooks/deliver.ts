import crypto from "node:crypto";
import { unseal } from "@/server/keys";
import http from "node:http";
import https from "node:https";
import { db } from "@/server/db";
import { isUuid } from "@/server/auth";
import { config } from "@/server/config";
import { projectPath } from "@/server/projects";
import { assertAllowedTarget, guardedLookup, TargetRefusedError } from "./targets";
import { subscribes } from "./event-filter";
import {
  WEBHOOK_DELIVERY_LOG_KEEP,
  WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES,
  WEBHOOK_MAX_ATTEMPTS,
  WEBHOOK_RESPONSE_EXCERPT_BYTES,
} from "./policy";

/** X-Svc-Delivery: the same for every attempt of one event to one webhook. */
export function deliveryIdFor(eventId: string, webhookId: string): string {
  return `dlv_${crypto.createHash("sha256").update(`${eventId}:${webhookId}`).digest("hex").slice(0, 32)}`;
}

/** X-Svc-Signature: `sha256=` + hex HMAC-SHA256 of the raw body, keyed with the webhook's secret. */
export function signBody(secret: string, body: string): string {
  return `sha256=${crypto.createHmac("sha256", secret).update(body).digest("hex")}`;
}

export interface Target {
  webhookId: string;
  deliveryId: string;
}

/** The active webhooks of the event's project that subscribe to its kind. */
export async function webhooksForEvent(eventId: string): Promise<Target[]> {
  if (!isUuid(eventId)) return [];
  const prisma = await db();
  const event = await prisma.domainEvent.findUnique({
    where: { id: eventId },
    select: { projectId: true, kind: true },
  });
  if (!event?.projectId) return [];
  const hooks = await prisma.webhook.findMany({
    where: { projectId: event.projectId, active: true },
    select: { id: true, events: true },
  });
  return hooks
    .filter((hook) => subscribes(hook.events, event.kind))
    .map((hook) => ({ webhookId: hook.id, deliveryId: deliveryIdFor(eventId, hook.id) }));
}

/** The events area's interest `webhooks`: the project has an active webhook (events of the others start no fan-out run). */
export const projectHasActiveWebhook = (project: string) =>
  `EXISTS (SELECT 1 FROM "Webhook" WHERE active AND "projectId" = ${project})`;

/** The JSON body sent for an event: built from stored rows only, so every attempt sends the same bytes. */
export async function buildPayload(eventId: string): Promise<{ kind: string; body: string } | null> {
  if (!isUuid(eventId)) return null;
  const prisma = await db();
  const rows = await prisma.$queryRaw<
    Array<{
      id: string;
      kind: string;
      actor: string;
      data: unknown;
      occurredAt: Date;
      projectId: string;
      namespace: string;
      slug: string;
    }>
  >`
    SELECT e."id", e."kind", e."actor", e."data", e."occurredAt", p."id" AS "projectId", p."namespace", p."slug"
    FROM "DomainEvent" e JOIN "Project" p ON p."id" = e."projectId"
    WHERE e."id" = ${eventId}::uuid`;
  const event = rows[0];
  if (!event) return null;
  const project = { id: event.projectId, namespace: event.namespace, slug: event.slug };
  const payload = {
    id: event.id,
    kind: event.kind,
    project: { ...project, path: projectPath(project) },
    actor: event.actor,
    occurredAt: new Date(event.occurredAt).toISOString(),
    data: event.data,
  };
  return { kind: event.kind, body: JSON.stringify(payload) };
}

export interface PostResult {
  statusCode?: number;
  durationMs: number;
  responseExcerpt?: string;
  error?: string;
  /** The outbound policy refused the target: retrying cannot help. */
  refused?: boolean;
}

export interface PostOptions {
  /** For the whole exchange. */
  timeoutMs: number;
  /** How much of the response body is kept (`responseExcerpt`); reading stops there. */
  maxResponseBytes: number;
  /** Gives up when it aborts (the request is destroyed; `error` says so). */
  signal?: AbortSignal;
}

/**
 * POSTs once, without following redirects, giving up after `timeoutMs` for the whole exchange.
 * Connections go through the outbound policy's lookup. Never throws: failures are in `error`.
 */
export function postOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostResult> {
  const { timeoutMs, maxResponseBytes } = options;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<PostResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const transport = url.protocol === "https:" ? https : http;
    const request = transport.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": Buffer.byteLength(body).toString() },
        lookup: guardedLookup,
        signal: options.signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        const done = () => {
          finish({
            statusCode: response.statusCode,
            responseExcerpt: Buffer.concat(chunks).toString("utf8").slice(0, maxResponseBytes),
          });
          response.destroy();
        };
        response.on("data", (chunk: Buffer) => {
          if (kept < maxResponseBytes) chunks.push(chunk.subarray(0, maxResponseBytes - kept));
          kept += chunk.length;
          if (kept >= maxResponseBytes) done();
        });
        response.on("end", done);
        response.on("error", (error) => finish({ statusCode: response.statusCode, error: error.message }));
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `timed out after ${timeoutMs} ms` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (error) => finish({ error: error.message, refused: error instanceof TargetRefusedError }));
    request.end(body);
  });
}

/**
 * The outbound path of webhooks and of evaluators that call out: the policy's check of the URL
 * (which resolves its host), then `postOnce`, which checks the addresses again at connect time.
 */
export async function guardedPost(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostResult> {
  try {
    await assertAllowedTarget(url);
  } catch (error) {
    if (error instanceof TargetRefusedError) return { durationMs: 0, error: error.message, refused: true };
    throw error;
  }
  return postOnce(url, body, headers, options);
}

/** What one attempt concluded: stop (delivered, failed, skipped) or try again later (retry). */
export type AttemptOutcome = "delivered" | "retry" | "failed" | "skipped";

const retryable = (result: PostResult) => result.statusCode === undefined || result.statusCode >= 500;

/**
 * One attempt of delivering an event to a webhook, recorded in its delivery log. An inactive or
 * deleted webhook (or a deleted event/project) receives nothing. The last failed attempt, or a
 * failure not worth retrying, counts toward auto-disabling the webhook; a success resets the count.
 */
export async function attemptDelivery(job: {
  eventId: string;
  webhookId: string;
  attempt: number;
}): Promise<AttemptOutcome> {
  const prisma = await db();
  const hook = await prisma.webhook.findUnique({ where: { id: job.webhookId } });
  if (!hook?.active) return "skipped";
  const payload = await buildPayload(job.eventId);
  if (!payload) return "skipped";
  const deliveryId = deliveryIdFor(job.eventId, hook.id);
  const url = new URL(hook.url);
  const result = await guardedPost(
    url,
    payload.body,
    {
      "content-type": "application/json",
      "user-agent": "svc-forge-webhooks/1",
      "x-svc-event": payload.kind,
      "x-svc-delivery": deliveryId,
      "x-svc-signature": signBody(unseal("webhook-secret", hook.sealedSecret), payload.body),
    },
    { timeoutMs: config.webhookTimeoutMs, maxResponseBytes: WEBHOOK_RESPONSE_EXCERPT_BYTES },
  );
  const succeeded = result.statusCode !== undefined && result.statusCode >= 200 && result.statusCode < 300;
  await prisma.webhookDelivery.create({
    data: {
      webhookId: hook.id,
      eventId: job.eventId,
      deliveryId,
      attempt: job.attempt,
      statusCode: result.statusCode ?? null,
      durationMs: result.durationMs,
      responseExcerpt: result.responseExcerpt ?? null,
      error: result.error ?? null,
      succeeded,
    },
  });
  if (succeeded) {
    if (hook.failureStreak > 0) await prisma.webhook.update({ where: { id: hook.id }, data: { failureStreak: 0 } });
    return "delivered";
  }
  if (!result.refused && retryable(result) && job.attempt < WEBHOOK_MAX_ATTEMPTS) return "retry";
  await countFailedDelivery(hook.id);
  return "failed";
}

/** Adds one failed delivery to the webhook's streak and deactivates it at the threshold, in one statement. */
async function countFailedDelivery(webhookId: string): Promise<void> {
  const prisma = await db();
  const reason = `Disabled after ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} consecutive failed deliveries`;
  await prisma.$executeRaw`
    UPDATE "Webhook" SET
      "failureStreak" = "failureStreak" + 1,
      "active" = CASE WHEN "failureStreak" + 1 >= ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} THEN false ELSE "active" END,
      "disabledAt" = CASE WHEN "active" AND "failureStreak" + 1 >= ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} THEN now() ELSE "disabledAt" END,
      "disabledReason" = CASE WHEN "active" AND "failureStreak" + 1 >= ${WEBHOOK_DISABLE_AFTER_FAILED_DELIVERIES} THEN ${reason} ELSE "disabledReason" END
    WHERE "id" = ${webhookId}::uuid`;
}

/** Keeps the newest attempts of every webhook's log (run on a schedule, off the delivery path). */
export async function pruneDeliveryLogs(): Promise<number> {
  const prisma = await db();
  return prisma.$executeRaw`
    DELETE FROM "WebhookDelivery" WHERE "id" IN (
      SELECT "id" FROM (
        SELECT "id", row_number() OVER (PARTITION BY "webhookId" ORDER BY "createdAt" DESC, "attempt" DESC) AS "rank"
        FROM "WebhookDelivery") ranked
      WHERE "rank" > ${WEBHOOK_DELIVERY_LOG_KEEP})`;
}
