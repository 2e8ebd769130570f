import type { Deployment, Project } from "@/server/generated/prisma/client";
import { db, type Tx } from "@/server/db";
import { publishAfterCommit, recordEvent } from "@/server/events";
import { branchRef, openProjectRepo, readRef } from "@/server/git";
import { loadPolicy, type DeployEntry } from "@/server/policy";
import { projectPath } from "@/server/projects";
import { allSecretValues, redactValues, secretValues } from "@/server/secrets";
import { runCommand } from "./providers/command";
import type { ProviderCall, ProviderResult } from "./providers/types";
import { callWebhook } from "./providers/webhook";
import { deploymentEventData } from "./view";

export type StartOutcome = { entry: DeployEntry } | { entry: null; status: string };

/** Why a queued deployment can no longer run under the policy in force, or null when it can. */
async function skipReason(row: Deployment, project: Project): Promise<{ reason: string } | { entry: DeployEntry }> {
  const tip = readRef(openProjectRepo(project.id), branchRef(project.defaultBranch));
  const policy = tip ? await loadPolicy(openProjectRepo(project.id), tip) : null;
  if (!policy?.ok)
    return {
      reason: `The project's policy is ${policy ? "invalid" : "unreadable"}: ${policy && !policy.ok ? policy.error : "no default branch"}`,
    };
  const entry = policy.policy.deploys.find((candidate) => candidate.name === row.name);
  if (!entry) return { reason: `The policy no longer has a deploy entry named "${row.name}"` };
  const branch = entry.branch ?? project.defaultBranch;
  if (branch !== row.branch)
    return { reason: `The deploy entry "${row.name}" now deploys ${branch}, not ${row.branch}` };
  return { entry };
}

/**
 * Waiting deployments of the same name for commits that landed before this one become `superseded`.
 * A commit's age is when its first attempt was requested (when it reached the branch), not the row's
 * own creation: a retry of an older commit is a new row, yet must not supersede a newer commit.
 */
async function supersedeOlderCommits(tx: Tx, row: Deployment): Promise<void> {
  await tx.$executeRaw`
    UPDATE "Deployment" AS waiting
    SET "status" = 'superseded', "error" = ${`Superseded by the deployment of ${row.commit}`}, "finishedAt" = now(), "updatedAt" = now()
    WHERE waiting."projectId" = ${row.projectId}::uuid AND waiting."name" = ${row.name}
      AND waiting."status" IN ('queued', 'pending_approval') AND waiting."commit" <> ${row.commit}
      AND (SELECT min(first."createdAt") FROM "Deployment" AS first
           WHERE first."projectId" = waiting."projectId" AND first."name" = waiting."name" AND first."commit" = waiting."commit")
        < (SELECT min(first."createdAt") FROM "Deployment" AS first
           WHERE first."projectId" = ${row.projectId}::uuid AND first."name" = ${row.name} AND first."commit" = ${row.commit})`;
}

/**
 * The job's first step: `queued` becomes `running` (or `skipped` when its entry is gone or names
 * another branch), and older commits' deployments of the same name still waiting become
 * `superseded`. Both are conditional UPDATEs on the status, so a row already taken (by another
 * run, an approval race, a supersession) is left alone and the job ends.
 */
export async function startDeployment(id: string): Promise<StartOutcome> {
  const prisma = await db();
  const row = await prisma.deployment.findUnique({ where: { id }, include: { project: true } });
  if (!row || row.status !== "queued") return { entry: null, status: row?.status ?? "missing" };
  const decision = await skipReason(row, row.project);
  return prisma.$transaction(async (tx) => {
    if ("reason" in decision) {
      const skipped = await tx.deployment.updateMany({
        where: { id, status: "queued" },
        data: { status: "skipped", error: decision.reason, finishedAt: new Date() },
      });
      return { entry: null, status: skipped.count ? "skipped" : "taken" };
    }
    const started = await tx.deployment.updateMany({
      where: { id, status: "queued" },
      data: { status: "running", startedAt: new Date() },
    });
    if (started.count === 0) return { entry: null, status: "taken" };
    await supersedeOlderCommits(tx, row);
    return { entry: decision.entry };
  });
}

async function callProvider(call: ProviderCall): Promise<ProviderResult> {
  try {
    return call.entry.provider === "webhook"
      ? await callWebhook({ ...call, entry: call.entry })
      : await runCommand({ ...call, entry: call.entry });
  } catch (error) {
    return { ok: false, log: "", error: `The ${call.entry.provider} provider failed: ${(error as Error).message}` };
  }
}

/**
 * The job's second step: counts the call (the count survives a crash, so a repeated call is
 * known and said), hands the entry's secrets to the provider, then records `succeeded` or `failed`
 * with the redacted log, and the matching event, in one transaction. The final write is
 * conditional on this call's number, so a call overtaken after a crash cannot overwrite the newer one.
 */
export async function runDeployment(id: string, entry: DeployEntry): Promise<{ status: string; call: number }> {
  const prisma = await db();
  const counted = await prisma.$queryRaw<Array<{ providerCalls: number }>>`
    UPDATE "Deployment" SET "providerCalls" = "providerCalls" + 1, "updatedAt" = now()
    WHERE "id" = ${id}::uuid AND "status" = 'running' RETURNING "providerCalls"`;
  if (counted.length === 0) return { status: "taken", call: 0 };
  const callNumber = Number(counted[0].providerCalls);
  const row = await prisma.deployment.findUniqueOrThrow({ where: { id }, include: { project: true } });
  const signWith = entry.provider === "webhook" ? entry.signWith : undefined;
  const wanted = [...new Set([...entry.secrets, ...(signWith ? [signWith] : [])])];
  const { values, missing } = await secretValues(row.projectId, wanted);
  let result: ProviderResult;
  if (missing.length > 0) {
    result = {
      ok: false,
      log: "",
      error: `The secret store of the project has no ${missing.map((name) => `"${name}"`).join(", ")}`,
    };
  } else {
    result = await callProvider({
      deployment: row,
      project: { id: row.projectId, path: projectPath(row.project) },
      entry,
      secrets: Object.fromEntries(entry.secrets.map((name) => [name, values[name]])),
      signingKey: signWith ? values[signWith] : undefined,
      call: callNumber,
    });
  }
  const note =
    callNumber > 1
      ? `[svc-forge] provider call ${callNumber} of this attempt: an earlier call was interrupted (same X-Svc-Delivery)\n`
      : "";
  const known = await allSecretValues(row.projectId);
  const finished = await prisma.$transaction(async (tx) => {
    const updated = await tx.deployment.updateManyAndReturn({
      where: { id, status: "running", providerCalls: callNumber },
      data: {
        status: result.ok ? "succeeded" : "failed",
        finishedAt: new Date(),
        error: result.ok ? null : redactValues(result.error, known),
        logTail: redactValues(note + result.log, known),
      },
    });
    if (updated.length === 0) return null;
    await recordEvent(tx, {
      projectId: row.projectId,
      kind: result.ok ? "deployment.succeeded" : "deployment.failed",
      actor: "system",
      data: deploymentEventData(updated[0]),
    });
    return updated[0];
  });
  if (finished) await publishAfterCommit();
  return { status: finished?.status ?? "taken", call: callNumber };
}

/**
 * The job's last resort when a step failed on every retry (our own failure, e.g. the database):
 * a deployment still `queued` or `running` ends `failed` with `deployment.failed`, never stuck.
 */
export async function abandonDeployment(id: string, reason: string): Promise<{ status: string }> {
  const prisma = await db();
  const known = await allSecretValues(
    (await prisma.deployment.findUniqueOrThrow({ where: { id }, select: { projectId: true } })).projectId,
  ).catch(() => []);
  const failed = await prisma.$transaction(async (tx) => {
    const rows = await tx.deployment.updateManyAndReturn({
      where: { id, status: { in: ["queued", "running"] } },
      data: {
        status: "failed",
        finishedAt: new Date(),
        error: redactValues(`The deployment job failed: ${reason}`, known),
      },
    });
    if (rows.length === 0) return null;
    await recordEvent(tx, {
      projectId: rows[0].projectId,
      kind: "deployment.failed",
      actor: "system",
      data: deploymentEventData(rows[0]),
    });
    return rows[0];
  });
  if (failed) await publishAfterCommit();
  return { status: failed?.status ?? "taken" };
}
