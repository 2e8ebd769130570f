import { z } from "zod";
import { listLimit, listOffset, namedSchema } from "@/server/http";
import { MERGE_STRATEGIES } from "./merge/commit";
import { ChangeStatus } from "./views";

// Output schemas, built per use (trpc-to-openapi mutates shared instances).

export const changeOutput = namedSchema("Change", () =>
  z.object({
    id: z.string(),
    number: z.number().int().describe("Per project, from the index issues share: `#12` names it"),
    status: z.enum(ChangeStatus),
    projectId: z.string(),
    project: z.string(),
    workspace: z.string().nullable(),
    author: z.object({ id: z.string(), username: z.string().nullable() }).nullable(),
    agentId: z.string().nullable(),
    title: z.string().nullable(),
    baseSha: z.string(),
    tipSha: z.string(),
    mergedSha: z.string().nullable(),
    mergedAt: z.string().nullable(),
    mergedById: z.string().nullable(),
    rejectedAt: z.string().nullable(),
    revertedSha: z.string().nullable(),
    revertedAt: z.string().nullable(),
    revertedById: z.string().nullable(),
    hostPullRequest: z.record(z.string(), z.unknown()).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

const finding = () =>
  z.object({
    message: z.string(),
    file: z.string().optional(),
    line: z.number().optional(),
    rule: z.string().optional(),
  });

export const evalOutput = namedSchema("Evaluation", () =>
  z.object({
    /** null while background runs of the round are going. */
    verdict: z.enum(["passed", "failed"]).nullable(),
    round: z.number(),
    summary: z.string(),
    issues: z.array(z.string()),
    baseSha: z.string(),
    tipSha: z.string(),
    createdAt: z.string(),
  }),
);

export const evalRunOutput = namedSchema("EvalRun", () =>
  z.object({
    id: z.string(),
    evaluator: z.string(),
    round: z.number(),
    status: z.enum(EVAL_RUN_STATUSES),
    findings: z.array(finding()),
    durationMs: z.number(),
    costUsd: z.number().nullable(),
    inputTokens: z.number().nullable(),
    outputTokens: z.number().nullable(),
    baseSha: z.string(),
    tipSha: z.string(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    attempts: z.number().int(),
    flaky: z.boolean(),
    exitCode: z.number().int().nullable(),
    timedOut: z.boolean(),
    cache: z.object({ key: z.string(), hit: z.boolean() }).nullable(),
    reusedFrom: z.string().nullable(),
    logBytes: z.number().int(),
  }),
);

export const EVAL_RUN_STATUSES = ["queued", "running", "passed", "failed", "error", "cancelled"] as const;

export const costOutput = namedSchema("Cost", () =>
  z.object({
    kind: z.string(),
    runs: z.number(),
    costUsd: z.number(),
    inputTokens: z.number(),
    outputTokens: z.number(),
    durationMs: z.number(),
  }),
);

/** `{id}` of change routes: a uuid (anything else is an unknown change: 404). */
/** The query of a change listing. */
export const changeListFilter = () => ({
  status: z.enum(ChangeStatus).optional(),
  limit: listLimit(),
  offset: listOffset(),
});

export const changeIdParam = () => z.string().min(1).max(100);

/** A merge strategy field (a new instance per use: schemas are never shared between procedures). */
export const mergeStrategy = () =>
  z.enum(MERGE_STRATEGIES, { message: `strategy must be ${MERGE_STRATEGIES.join(" or ")}` });
