import type { EvalRun } from "@/server/generated/prisma/client";
import type { EvalRunStatus } from "@/server/generated/prisma/enums";
import type { Identity } from "@/server/auth";
import { db } from "@/server/db";
import { conflict, notFound } from "@/server/errors";
import { requireProject } from "@/server/projects";
import { isUuid, loadChange } from "../load";
import { evalRunView } from "../views";
import { readRunLog, runLogPath, tailLines } from "./log";
import { runEnded } from "./settle";
import { cancelRun } from "./store";

async function runOfChange(changeId: string, runId: string): Promise<EvalRun> {
  const run = isUuid(runId) ? await (await db()).evalRun.findUnique({ where: { id: runId } }) : null;
  if (!run || run.changeId !== changeId) throw notFound("Unknown evaluation run");
  return run;
}

/**
 * Cancels a queued or running run (write access): its runner aborts it at once, on whichever
 * instance (the cancel is announced), and the round ends without it. 409 when it had ended.
 */
export async function cancelEvalRun(identity: Identity, changeId: string, runId: string) {
  await loadChange(identity, changeId, "write");
  const run = await runOfChange(changeId, runId);
  const cancelled = await (await db()).$transaction((tx) => cancelRun(tx, runId));
  if (!cancelled) throw conflict("The evaluation run has already ended", "CONFLICT");
  await runEnded(run);
  return evalRunView(cancelled);
}

const QUEUE_POSITIONS = `
SELECT id, position::int FROM (SELECT id, row_number() OVER (ORDER BY "createdAt", id) AS position FROM "EvalRun" WHERE status = 'queued') AS q
 WHERE id = ANY($1::uuid[])`;

/** A project's unfinished runs (read access), oldest first, each with its change and its place in the queue. */
export async function listEvalRuns(
  identity: Identity,
  ref: { namespace: string; slug: string },
  filter: { status?: "queued" | "running"; limit: number },
) {
  const { project } = await requireProject(identity, ref, "read");
  const prisma = await db();
  const runs = await prisma.evalRun.findMany({
    where: { projectId: project.id, status: filter.status ? filter.status : { in: ["queued", "running"] } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: filter.limit,
    include: { change: { select: { id: true, title: true, status: true } } },
  });
  const queued = runs.filter((run) => run.status === "queued").map((run) => run.id);
  const positions = new Map(
    (queued.length
      ? await prisma.$queryRawUnsafe<Array<{ id: string; position: number }>>(QUEUE_POSITIONS, queued)
      : []
    ).map((row) => [row.id, Number(row.position)]),
  );
  return {
    evaluations: runs.map(({ change, ...run }) => ({
      run: evalRunView(run),
      change,
      position: positions.get(run.id) ?? null,
    })),
  };
}

/** Where a run's log is and whether it is final (read access; 404 for an unknown run). */
export async function evalRunLog(
  identity: Identity,
  changeId: string,
  runId: string,
): Promise<{ path: string; status: EvalRunStatus; read(): Promise<EvalRunStatus> }> {
  const { project } = await loadChange(identity, changeId, "read", { cachedRow: true });
  const run = await runOfChange(changeId, runId);
  return {
    path: runLogPath(project.id, run.id),
    status: run.status,
    // A run deleted meanwhile (its change or project went) reads as cancelled.
    read: async () =>
      (await (await db()).evalRun.findUnique({ where: { id: runId }, select: { status: true } }))?.status ??
      "cancelled",
  };
}

/** A run's status and log text (its last `tail` lines when given), for callers that take JSON (MCP, the page). */
export async function evalRunLogText(identity: Identity, changeId: string, runId: string, tail?: number) {
  const log = await evalRunLog(identity, changeId, runId);
  const text = readRunLog(log.path).toString("utf8");
  return {
    runId,
    status: log.status,
    logBytes: Buffer.byteLength(text),
    log: tail === undefined ? text : tailLines(text, tail),
  };
}
