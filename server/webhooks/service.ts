import crypto from "node:crypto";
import type { Webhook, WebhookDelivery } from "@/server/generated/prisma/client";
import { db } from "@/server/db";
import { seal } from "@/server/keys";
import { type Identity, isUuid } from "@/server/auth";
import { assertNotDeleting, requireProject } from "@/server/projects";
import { invalid, notFound } from "@/server/errors";
import { assertAllowedTarget, TargetRefusedError } from "./targets";
import { normalizeEventFilter } from "./event-filter";
import { WEBHOOK_DELIVERY_LOG_PAGE } from "./policy";

type ProjectRef = { namespace: string; slug: string };

export function webhookView(hook: Webhook) {
  return {
    id: hook.id,
    url: hook.url,
    events: hook.events,
    active: hook.active,
    failureStreak: hook.failureStreak,
    disabledAt: hook.disabledAt?.toISOString() ?? null,
    disabledReason: hook.disabledReason,
    createdAt: hook.createdAt.toISOString(),
  };
}

function deliveryView(delivery: WebhookDelivery, kind: string | null) {
  return {
    id: delivery.id,
    deliveryId: delivery.deliveryId,
    eventId: delivery.eventId,
    kind,
    attempt: delivery.attempt,
    succeeded: delivery.succeeded,
    statusCode: delivery.statusCode,
    durationMs: delivery.durationMs,
    responseExcerpt: delivery.responseExcerpt,
    error: delivery.error,
    createdAt: delivery.createdAt.toISOString(),
  };
}

/** Webhook routes need project write access: 404 for callers who cannot read, 403 for readers. */
const writableProject = (identity: Identity, ref: ProjectRef) =>
  requireProject(identity, { namespace: ref.namespace, slug: ref.slug }, "write");

async function findHook(projectId: string, id: string): Promise<Webhook> {
  if (!isUuid(id)) throw notFound("Webhook not found");
  const prisma = await db();
  const hook = await prisma.webhook.findFirst({ where: { id, projectId } });
  if (!hook) throw notFound("Webhook not found");
  return hook;
}

export async function createWebhook(identity: Identity, ref: ProjectRef, input: { url: string; events: string }) {
  const { project } = await writableProject(identity, ref);
  assertNotDeleting(project);
  const events = normalizeEventFilter(input.events);
  if ("error" in events) throw invalid(events.error, "VALIDATION_ERROR");
  const url = new URL(input.url);
  try {
    await assertAllowedTarget(url);
  } catch (error) {
    if (error instanceof TargetRefusedError) throw invalid(`url refused: ${error.message}`, "VALIDATION_ERROR");
    throw error;
  }
  const prisma = await db();
  const secret = `whsec_${crypto.randomBytes(32).toString("base64url")}`;
  const hook = await prisma.webhook.create({
    data: {
      projectId: project.id,
      url: url.toString(),
      events: events.value,
      sealedSecret: seal("webhook-secret", secret),
    },
  });
  return { ...webhookView(hook), secret };
}

export async function listWebhooks(identity: Identity, ref: ProjectRef) {
  const { project } = await writableProject(identity, ref);
  const prisma = await db();
  const hooks = await prisma.webhook.findMany({
    where: { projectId: project.id },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
  });
  return hooks.map(webhookView);
}

export async function deleteWebhook(identity: Identity, ref: ProjectRef, id: string) {
  const { project } = await writableProject(identity, ref);
  const hook = await findHook(project.id, id);
  const prisma = await db();
  const [, removed] = await prisma.$transaction([
    prisma.webhookDelivery.deleteMany({ where: { webhookId: hook.id } }),
    prisma.webhook.deleteMany({ where: { id: hook.id } }),
  ]);
  return { deleted: removed.count === 1, id: hook.id };
}

/** Flips `active` in one statement (concurrent toggles never lose a flip); re-enabling clears the auto-disable record. */
export async function toggleWebhook(identity: Identity, ref: ProjectRef, id: string) {
  const { project } = await writableProject(identity, ref);
  const hook = await findHook(project.id, id);
  const prisma = await db();
  const rows = await prisma.$queryRaw<Array<{ active: boolean }>>`
    UPDATE "Webhook" SET
      "active" = NOT "active",
      "failureStreak" = CASE WHEN "active" THEN "failureStreak" ELSE 0 END,
      "disabledAt" = CASE WHEN "active" THEN "disabledAt" ELSE NULL END,
      "disabledReason" = CASE WHEN "active" THEN "disabledReason" ELSE NULL END
    WHERE "id" = ${hook.id}::uuid
    RETURNING "active"`;
  if (rows.length === 0) throw notFound("Webhook not found");
  return { id: hook.id, active: rows[0].active };
}

/** The most recent attempts, newest first. */
export async function listDeliveries(identity: Identity, ref: ProjectRef, id: string) {
  const { project } = await writableProject(identity, ref);
  const hook = await findHook(project.id, id);
  const prisma = await db();
  const deliveries = await prisma.webhookDelivery.findMany({
    where: { webhookId: hook.id },
    orderBy: [{ createdAt: "desc" }, { attempt: "desc" }],
    take: WEBHOOK_DELIVERY_LOG_PAGE,
  });
  const events = await prisma.domainEvent.findMany({
    where: { id: { in: [...new Set(deliveries.map((d) => d.eventId))] } },
    select: { id: true, kind: true },
  });
  const kinds = new Map(events.map((event) => [event.id, event.kind]));
  return deliveries.map((delivery) => deliveryView(delivery, kinds.get(delivery.eventId) ?? null));
}
