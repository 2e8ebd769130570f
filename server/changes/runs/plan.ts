import { createHash } from "node:crypto";
import type { EvalRun } from "@/server/generated/prisma/client";
import { db } from "@/server/db";
import type { BackgroundRunSpec, Finding } from "@/server/evaluators";
import { readCommit, type Repo } from "@/server/git";

/** A final run whose result a new identical run takes instead of running. */
export interface ReusableRun {
  id: string;
  status: "passed" | "failed";
  findings: Finding[];
  exitCode: number | null;
  timedOut: boolean;
  flaky: boolean;
  cacheKey: string | null;
  cacheHit: boolean | null;
}

/** A background run of a new round: what it runs, what names an identical run, and the run it reuses. */
export type PlannedRun = BackgroundRunSpec & { reuseKey: string | null; reused: ReusableRun | null };

/**
 * What makes two sandbox runs the same: the evaluated tree (not the commit: a rebased or re-made
 * commit with the same files is the same test) and every evaluator setting (command, setup, cache,
 * reports, retries, limits). The cache key follows from the tree (the lockfiles are in it). Webhook
 * and llm runs judge the diff against a moving base and a service outside: never reused.
 */
export function reuseKeyOf(tree: string, spec: BackgroundRunSpec): string | null {
  if (spec.evaluator !== "sandbox") return null;
  return createHash("sha256")
    .update(JSON.stringify({ evaluator: spec.evaluator, tree, settings: spec.settings }))
    .digest("hex");
}

/** The background runs of a round at `tip`, each with the latest final passed/failed identical run of the project, if any. */
export async function plannedRuns(
  projectId: string,
  repo: Repo,
  tip: string,
  background: BackgroundRunSpec[],
): Promise<PlannedRun[]> {
  if (background.length === 0) return [];
  const { tree } = await readCommit(repo, tip);
  const keyed = background.map((spec) => ({ ...spec, reuseKey: reuseKeyOf(tree, spec) }));
  const keys = keyed.flatMap((run) => (run.reuseKey ? [run.reuseKey] : []));
  const found = keys.length
    ? await (
        await db()
      ).evalRun.findMany({
        where: { projectId, reuseKey: { in: keys }, status: { in: ["passed", "failed"] }, reusedFrom: null },
        orderBy: { finishedAt: "desc" },
        select: {
          id: true,
          reuseKey: true,
          status: true,
          findings: true,
          exitCode: true,
          timedOut: true,
          flaky: true,
          cacheKey: true,
          cacheHit: true,
        },
      })
    : [];
  return keyed.map((run) => {
    const hit = found.find((row) => row.reuseKey === run.reuseKey);
    return { ...run, reused: hit ? ({ ...hit, findings: hit.findings as unknown as Finding[] } as ReusableRun) : null };
  });
}

/**
 * A planned run's own columns as stored (`at`: when): `queued`, or the final result it reuses
 * (`reusedFrom` set, nothing to execute).
 */
export function plannedRunFields(planned: PlannedRun, at: Date) {
  const base = {
    evaluator: planned.evaluator,
    settings: planned.settings as unknown as EvalRun["settings"],
    reuseKey: planned.reuseKey,
    durationMs: 0,
  };
  const reused = planned.reused;
  if (!reused) return { ...base, status: "queued" as const, findings: [] as EvalRun["findings"] };
  return {
    ...base,
    status: reused.status,
    findings: reused.findings as unknown as EvalRun["findings"],
    exitCode: reused.exitCode,
    timedOut: reused.timedOut,
    flaky: reused.flaky,
    cacheKey: reused.cacheKey,
    cacheHit: reused.cacheHit,
    reusedFrom: reused.id,
    startedAt: at,
    finishedAt: at,
  };
}
