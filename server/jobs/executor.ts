import { log } from "@/server/log";
import crypto from "node:crypto";
import type { InngestFunction } from "inngest";
import { config } from "@/server/config";
import { database } from "@/server/db";
import { dispatchEvents, fireDueSchedules, syncSchedules } from "./dispatch";
import { dueWork } from "./due";
import { backoffMs, parseDuration, retryAfterMs, sleepUntil } from "./durations";
import { compileExpression } from "./expressions";
import { embeddedSigningKey, localExecutors, type LocalExecutor } from "./mode";
import { GroupCommit, type Claimer } from "./group-commit";
import { inProcessInvoker } from "./in-process";
import { errorText, readOutcome, runRequest, syncRequest, type Op, type Outcome, type RunCall } from "./protocol";
import { readSyncAnswer, type FunctionSpec } from "./registry";
import { serveFunctions } from "./serve";
import {
  claimRuns,
  completeRun,
  failRun,
  latestEventSeq,
  park,
  recordSteps,
  releaseRun,
  renewLease,
  resolveDuePending,
  scheduleRetry,
  type Lease,
  type StepResult,
} from "./runs";
import type { RunState } from "./claim";
import type { JobsDb, PendingEntry } from "./store";

export type ServeHandler = (request: Request) => Promise<Response>;

/** The executor's notion of now; tests move it forward to end sleeps and backoffs without waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export type ExecutorOptions = ExecutorSettings &
  (
    | {
        /** Functions this process serves: called in-process, without the serve protocol's HTTP round trip. */
        functions: InngestFunction.Any[];
        handler?: undefined;
      }
    | {
        /** A serve handler's POST and PUT, called with signed requests as Inngest would call /api/inngest. */
        handler: { POST: ServeHandler; PUT: ServeHandler };
        functions?: undefined;
      }
  );

export interface ExecutorSettings {
  /** Defaults to the process-wide database. */
  jobs?: JobsDb;
  clock?: Clock;
  /** false: no background loop; work runs only in drain() (tests). */
  autoRun?: boolean;
  /**
   * Idle poll interval: picks up work other processes created. Work this process creates wakes the
   * loop, and the times it knows of (sleeps, retries, cron ticks) are timed, not polled.
   */
  pollMs?: number;
  leaseMs?: number;
  /** Runs driven at once by this executor (DEFAULT_CONCURRENCY). */
  concurrency?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

const DISPATCH_BATCH = 100;
// Runs in flight wait mostly on the database and on HTTP (webhooks, providers); the git-heavy
// functions limit themselves per key. More runs in flight make bigger group commits and claims:
// a one-step run costs 5.4 ms of CPU at 32 against 8.7 at 8 (bench/jobs, docs/performance.md).
const DEFAULT_CONCURRENCY = 32;
const IDLE_POLL_MS = 5000;
// Runs a claim left behind (a concurrency key at its limit, rows another instance holds) are due
// again about this soon: the loop looks again then rather than at the next poll.
const RECHECK_MS = 250;
const STEP_OPS = new Set(["StepRun", "StepError", "StepFailed"]);
const TIMER_OPS = new Set(["Sleep", "WaitForEvent"]);

type Stop = "stop" | "continue";

function describeError(error: unknown): { name: string; message: string } {
  if (error && typeof error === "object" && "message" in error) {
    const { name, message } = error as { name?: unknown; message?: unknown };
    return { name: typeof name === "string" ? name : "Error", message: String(message) };
  }
  return { name: "Error", message: errorText(error) };
}

/**
 * Drives Inngest functions without an Inngest server: it speaks the SDK's serve protocol to the
 * handler in-process and keeps events, runs, steps and timers in the database (see
 * docs/ARCHITECTURE.md, "Background jobs").
 */
export class EmbeddedExecutor implements LocalExecutor {
  readonly owner = `executor-${crypto.randomUUID()}`;
  readonly clock: Clock;
  private jobs!: JobsDb;
  private specs = new Map<string, FunctionSpec>();
  private readonly active = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<boolean> | null = null;
  private tickAgain = false;
  private stopping = false;
  private dead = false;
  private readonly serveUrl = `${config.baseUrl}/api/inngest`;
  private readonly signingKey = embeddedSigningKey();
  private readonly handler: { POST: ServeHandler; PUT: ServeHandler };
  private readonly invoke: (call: RunCall) => Promise<Outcome>;
  private commit!: GroupCommit;
  /** Events may be waiting for dispatch (one was sent, or the last look saw some). */
  private eventsMaybe = false;
  /** The last dispatch saw an event that started nothing: the next one marks such events first, outside a transaction. */
  private markQuietFirst = true;
  /** Due runs may be waiting for a claim beyond what this executor drives (it was full, or the last look saw some). */
  private backlog = false;
  /** The next pass first looks for due work (a timer ended, a run parked or failed, a cron tick fired). */
  private probe = true;
  /** The earliest cron tick the last look saw, and the earliest later time anything becomes due. */
  private cronAt: number | null = null;
  private nextDueAt: number | null = null;
  /** Slots of claims in flight (folded into a group commit, or the loop's own). */
  private claiming = 0;
  /** Real time (not the clock) of the last completed loop pass; health reports a stalled loop. */
  lastTickAt: number | null = null;
  lastTickError: string | null = null;

  constructor(private readonly options: ExecutorOptions) {
    this.clock = options.clock ?? systemClock;
    if (options.functions) {
      this.handler = serveFunctions(options.functions);
      this.invoke = inProcessInvoker(options.functions);
    } else {
      const handler = options.handler;
      this.handler = handler;
      this.invoke = async (call) => readOutcome(await handler.POST(runRequest(call)));
    }
  }

  private get leaseMs(): number {
    return this.options.leaseMs ?? config.jobLeaseMs;
  }

  private get concurrency(): number {
    return this.options.concurrency ?? DEFAULT_CONCURRENCY;
  }

  /** Slots free for more runs: what runs in flight and claims under way leave. */
  private get free(): number {
    return this.concurrency - this.active.size - this.claiming;
  }

  /**
   * The claim folded into a group commit: while a backlog may exist, the statement that completes
   * runs also leases as many due runs of functions without a concurrency limit as it frees slots.
   */
  private readonly claimer: Claimer = {
    request: (completes) => {
      const functionIds = [...this.specs.values()].filter((spec) => !spec.concurrency).map((spec) => spec.id);
      // The completing runs are still in `active` until their write resolves.
      const limit = this.free + completes;
      if (!this.backlog || this.stopping || this.dead || !functionIds.length || limit <= 0) return null;
      this.claiming += limit;
      return { limit, functionIds, leaseMs: this.leaseMs };
    },
    claimed: (runs, request) => {
      this.claiming -= request.limit;
      // A failed batch claimed nothing: the loop claims instead.
      if (runs === null) this.backlog = true;
      // Limited functions are claimed only by the loop's claim.
      else
        this.afterClaim(
          runs,
          request.limit,
          [...this.specs.values()].some((spec) => spec.concurrency),
        );
    },
  };

  /** Drives what a claim of `limit` leased; a short claim means nothing more is due now. */
  private afterClaim(runs: RunState[], limit: number, more = false): void {
    this.backlog = runs.length === limit || more;
    // What the claim left behind (a key at its limit, rows another instance holds) is due soon.
    if (runs.length < limit) this.nextDueAt = Math.min(this.nextDueAt ?? Infinity, this.clock.now() + RECHECK_MS);
    for (const run of runs) this.startDriving(run);
  }

  private now(): Date {
    return new Date(this.clock.now());
  }

  get running(): boolean {
    return !this.stopping && this.specs.size > 0;
  }

  get functionIds(): string[] {
    return [...this.specs.keys()];
  }

  /** Syncs with the handler (refusing unsupported options), then starts the loop. */
  async start(): Promise<this> {
    if (!this.jobs) {
      const db = await database();
      this.jobs = this.options.jobs ?? { prisma: db.prisma, kind: db.kind };
      this.commit = new GroupCommit(this.jobs, this.owner, () => this.now(), this.claimer);
    }
    const response = await this.handler.PUT(syncRequest(this.serveUrl, this.signingKey));
    const body: unknown = await response.json().catch(() => null);
    if (response.status !== 200)
      throw new Error(`syncing with the serve handler failed (${response.status}): ${JSON.stringify(body)}`);
    this.specs = new Map(readSyncAnswer(body).map((spec) => [spec.id, spec]));
    await syncSchedules(this.jobs, [...this.specs.values()], this.now());
    localExecutors().add(this);
    this.schedule(0);
    return this;
  }

  /** An event was sent: run the loop now. */
  wake(): void {
    this.eventsMaybe = true;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.options.autoRun === false || this.stopping || this.dead) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      // A poll or a due time: look for work in the database (events and runs other instances created, ended timers).
      if (delayMs > 0) this.probe = true;
      void this.tick().then((busy) => this.schedule(busy ? 0 : this.idleDelay()));
    }, delayMs);
    this.timer.unref();
  }

  /** Until the next poll, or sooner when the last look saw something become due before it. */
  private idleDelay(): number {
    const poll = this.options.pollMs ?? IDLE_POLL_MS;
    if (this.nextDueAt === null) return poll;
    return Math.min(poll, Math.max(1, this.nextDueAt - this.clock.now()));
  }

  /**
   * One pass: dispatch pending events, fire due cron ticks, claim due runs up to the free capacity
   * and start driving them. Answers whether it found work. Passes never overlap.
   */
  tick(): Promise<boolean> {
    if (this.ticking) {
      this.tickAgain = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      let busy = false;
      try {
        do {
          this.tickAgain = false;
          busy = (await this.pass()) || busy;
        } while (this.tickAgain && !this.stopping);
        this.lastTickError = null;
      } catch (error) {
        const failingAlready = this.lastTickError !== null;
        this.lastTickError = (error as Error).message;
        log().error({ err: error }, "jobs: executor pass failed");
        // What it failed to read or claim is looked for again: soon after a first failure (a lost
        // connection, a pool's wait given up), not at the next idle poll; at the idle poll while
        // the passes keep failing (a database that is down), not in a loop.
        this.probe = true;
        this.nextDueAt = failingAlready ? null : this.clock.now() + RECHECK_MS;
      } finally {
        this.lastTickAt = Date.now();
        this.ticking = null;
      }
      return busy;
    })();
    return this.ticking;
  }

  /**
   * Dispatches events only when some may be waiting and claims runs only when some may be due
   * beyond the ones it drives: a run finishing costs no query unless there is a backlog, and an
   * idle pass costs one indexed read (dueWork) instead of a dispatch and a claim.
   */
  private async pass(): Promise<boolean> {
    if (this.stopping || this.dead) return false;
    const specs = [...this.specs.values()];
    let busy = false;
    if (this.probe) {
      this.probe = false;
      const cronIds = specs.filter((spec) => spec.cron).map((spec) => spec.id);
      const due = await dueWork(this.jobs, this.functionIds, cronIds, this.clock.now());
      if (due.events) this.eventsMaybe = true;
      if (due.runs) this.backlog = true;
      this.cronAt = due.cronAt;
      this.nextDueAt = due.nextAt;
    }
    while (this.eventsMaybe && !this.stopping) {
      this.eventsMaybe = false;
      const capacity = Math.max(0, this.free);
      const claim = { owner: this.owner, leaseMs: this.leaseMs, capacity };
      this.claiming += capacity;
      let result: Awaited<ReturnType<typeof dispatchEvents>>;
      try {
        result = await dispatchEvents(this.jobs, specs, this.now(), DISPATCH_BATCH, {
          claim,
          markQuietFirst: this.markQuietFirst,
        });
      } finally {
        this.claiming -= capacity;
      }
      this.markQuietFirst = result.sawQuiet;
      if (result.events === DISPATCH_BATCH) this.eventsMaybe = true;
      if (result.queued) this.backlog = true;
      if (result.events) busy = true;
      for (const run of result.claimed) {
        this.startDriving({ ...run, attempt: 0, stepAttempts: {}, retryStepId: null, pending: [], steps: [] });
      }
    }
    if (this.cronAt !== null && this.clock.now() >= this.cronAt) {
      this.cronAt = null;
      if ((await fireDueSchedules(this.jobs, specs, this.now())) > 0) this.backlog = true;
      // The schedules moved on (here or in another instance): the next pass reads their next tick.
      busy = this.probe = true;
    }
    const free = this.free;
    if (!this.backlog || free <= 0) return busy;
    this.claiming += free;
    let claimed: RunState[];
    try {
      claimed = await claimRuns(this.jobs, {
        owner: this.owner,
        specs: this.specs,
        now: this.now(),
        leaseMs: this.leaseMs,
        limit: free,
      });
    } finally {
      this.claiming -= free;
    }
    this.afterClaim(claimed, free);
    return busy || claimed.length > 0;
  }

  private startDriving(run: RunState): void {
    const driving = this.drive(run)
      .catch((error) => log().error({ runId: run.id, err: error }, "jobs: driving a run failed"))
      .then((ended) => {
        // A failed run sent inngest/function.failed; a retry, a sleep or a wait is due later: look.
        if (ended !== "completed") this.probe = true;
      })
      .finally(() => {
        this.active.delete(run.id);
        if (this.eventsMaybe || this.backlog || this.probe) this.schedule(0);
      });
    this.active.set(run.id, driving);
  }

  /**
   * Runs every due piece of work until none is left (events, cron ticks, runs, including runs
   * those start). With `fastForward`, the clock then jumps to the next sleep end, retry or wait
   * timeout and carries on. Throws when `timeoutMs` passes first.
   */
  async drain(
    options: { timeoutMs?: number; fastForward?: boolean; advance?: (ms: number) => void } = {},
  ): Promise<void> {
    const deadline = Date.now() + (options.timeoutMs ?? 10_000);
    for (;;) {
      if (Date.now() > deadline) throw new Error(`jobs did not drain within ${options.timeoutMs ?? 10_000} ms`);
      this.eventsMaybe = this.backlog = this.probe = true;
      const busy = await this.tick();
      if (this.active.size) {
        await Promise.all(this.active.values());
        continue;
      }
      if (busy) continue;
      if (!options.fastForward || !options.advance) return;
      const next = await this.jobs.prisma.jobRun.findFirst({
        where: { functionId: { in: this.functionIds }, status: { in: ["queued", "sleeping", "waiting"] } },
        orderBy: { availableAt: "asc" },
        select: { availableAt: true },
      });
      if (!next) return;
      options.advance(Math.max(0, next.availableAt.getTime() - this.clock.now()));
    }
  }

  /**
   * Stops claiming, lets runs in flight finish their current call and hands them back. A step
   * still running after `timeoutMs` is left to its lease: another instance (or the next start)
   * resumes the run once the lease expires.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    localExecutors().delete(this);
    let giveUp: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      giveUp = setTimeout(resolve, timeoutMs);
      giveUp.unref();
    });
    const settled = (async () => {
      await this.ticking;
      await Promise.all(this.active.values());
    })();
    await Promise.race([settled, deadline]);
    clearTimeout(giveUp);
  }

  /** Simulates a crash (tests): the executor stops at once and never writes again; its leases just expire. */
  kill(): void {
    this.dead = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    localExecutors().delete(this);
  }

  private lease(runId: string): Lease {
    return {
      jobs: this.jobs,
      runId,
      owner: this.owner,
      leaseMs: this.leaseMs,
      now: () => this.now(),
      commit: this.commit,
    };
  }

  /**
   * Calls the handler for a run until it parks, retries later, ends, or the lease is lost. The run's
   * state is kept here between calls (every write is conditional on the lease, so it cannot drift
   * from the database while the lease is held); answers "completed" when the run completed.
   */
  private async drive(run: RunState): Promise<Stop | "completed"> {
    const lease = this.lease(run.id);
    for (;;) {
      if (this.dead) return "stop";
      if (this.stopping) {
        await releaseRun(lease);
        return "stop";
      }
      const now = this.clock.now();
      const due = run.pending.filter((entry) => entry.at <= now);
      if (due.length) {
        if (!(await resolveDuePending(lease, due))) return "stop";
        run.pending = run.pending.filter((entry) => !due.includes(entry));
        run.steps.push(
          ...due.map((entry) => ({ stepId: entry.stepId, type: "data" as const, data: null, error: undefined })),
        );
        continue;
      }
      const stepId = run.retryStepId ?? "step";
      const attempt = run.retryStepId ? (run.stepAttempts[run.retryStepId] ?? 0) : run.attempt;
      const outcome = await this.call(run, stepId, attempt, lease);
      if (this.dead) return "stop";
      const next = await this.apply(run, outcome, lease);
      if (next !== "continue") return next;
    }
  }

  /** One signed call of the serve handler, renewing the lease while the step runs. */
  private async call(run: RunState, stepId: string, attempt: number, lease: Lease): Promise<Outcome> {
    const heartbeat = setInterval(
      () => {
        if (!this.dead) void renewLease(lease).catch(() => undefined);
      },
      Math.max(250, this.leaseMs / 3),
    );
    heartbeat.unref();
    const started = performance.now();
    let outcome: Outcome;
    try {
      outcome = await this.invoke({
        serveUrl: this.serveUrl,
        functionId: run.functionId,
        stepId,
        runId: run.id,
        event: run.event,
        steps: run.steps,
        attempt,
        maxAttempts: run.maxAttempts,
        signingKey: this.signingKey,
      });
    } catch (error) {
      outcome = { kind: "retry", error: describeError(error).message, retryAfter: null };
    } finally {
      clearInterval(heartbeat);
    }
    // One line per step call: ids and the outcome's kind only (step data may hold anything).
    const durationMs = Math.round((performance.now() - started) * 10) / 10;
    log()[outcome.kind === "retry" || outcome.kind === "failed" ? "warn" : "info"]({
      msg: "job step",
      runId: run.id,
      functionId: run.functionId,
      stepId,
      attempt,
      outcome: outcome.kind,
      durationMs,
    });
    return outcome;
  }

  private retryAt(failedAttempts: number, retryAfter: string | null): Date {
    const now = this.clock.now();
    const delay =
      retryAfterMs(retryAfter, now) ??
      backoffMs(failedAttempts, this.options.retryBaseMs ?? 1000, this.options.retryMaxMs ?? 600_000);
    return new Date(now + delay);
  }

  private async apply(run: RunState, outcome: Outcome, lease: Lease): Promise<Stop | "completed"> {
    switch (outcome.kind) {
      case "completed":
        return (await completeRun(lease, outcome.output)) ? "completed" : "stop";
      case "failed":
        await failRun(lease, { name: "Error", message: outcome.error });
        return "stop";
      case "retry": {
        const attempt = run.attempt + 1;
        if (attempt >= run.maxAttempts) await failRun(lease, { name: "Error", message: outcome.error });
        else
          await scheduleRetry(lease, {
            stepIds: [],
            attempt,
            at: this.retryAt(attempt, outcome.retryAfter),
            error: outcome.error,
          });
        return "stop";
      }
      case "ops":
        return this.applyOps(run, outcome.ops, outcome.retryAfter, lease);
    }
  }

  private async applyOps(
    run: RunState,
    ops: Op[],
    retryAfter: string | null,
    lease: Lease,
  ): Promise<Stop | "completed"> {
    const unsupported = ops.find((op) => op.op !== "StepPlanned" && !STEP_OPS.has(op.op) && !TIMER_OPS.has(op.op));
    if (unsupported) {
      await failRun(lease, {
        name: "NonRetriableError",
        message: `${unsupported.op} (${unsupported.displayName ?? unsupported.id}) is not supported by the embedded executor`,
      });
      return "stop";
    }
    const ran = ops.filter((op) => STEP_OPS.has(op.op)).map((op) => ({ op, retryAfter }));
    const planned = ops.filter((op) => op.op === "StepPlanned");
    // Parallel steps: each planned step is its own call, as Inngest would make them.
    const plannedOutcomes = await Promise.all(
      planned.map(async (op) => ({ op, outcome: await this.call(run, op.id, run.stepAttempts[op.id] ?? 0, lease) })),
    );
    for (const { op, outcome } of plannedOutcomes) {
      if (outcome.kind !== "ops") return this.apply(run, outcome, lease);
      const result = outcome.ops.find((candidate) => STEP_OPS.has(candidate.op) && candidate.id === op.id);
      if (!result)
        return this.apply(
          run,
          { kind: "retry", error: `planned step ${op.displayName ?? op.id} did not run`, retryAfter: null },
          lease,
        );
      ran.push({ op: result, retryAfter: outcome.retryAfter });
    }
    if (this.dead) return "stop";
    const finished: StepResult[] = ran
      .filter(({ op }) => op.op !== "StepError")
      .map(({ op }) =>
        op.op === "StepRun"
          ? { stepId: op.id, name: op.displayName ?? op.name ?? op.id, type: "data", data: op.data ?? null }
          : { stepId: op.id, name: op.displayName ?? op.name ?? op.id, type: "error", error: op.error },
      );
    if (finished.length) {
      if (!(await recordSteps(lease, run, finished))) return "stop";
      run.steps.push(
        ...finished.map((step) => ({ stepId: step.stepId, type: step.type, data: step.data, error: step.error })),
      );
      run.attempt = 0;
      run.retryStepId = null;
    }
    const errors = ran.filter(({ op }) => op.op === "StepError");
    if (errors.length) {
      const at = new Date(
        Math.min(
          ...errors.map(({ op, retryAfter: after }) =>
            this.retryAt((run.stepAttempts[op.id] ?? 0) + 1, after).getTime(),
          ),
        ),
      );
      await scheduleRetry(lease, { stepIds: errors.map(({ op }) => op.id), at, error: errorText(errors[0].op.error) });
      return "stop";
    }
    if (ran.length) return "continue";
    return this.parkOn(
      ops.filter((op) => TIMER_OPS.has(op.op)),
      lease,
    );
  }

  private async parkOn(timers: Op[], lease: Lease): Promise<Stop> {
    if (!timers.length) {
      await failRun(lease, { name: "Error", message: "the handler answered with no operations" });
      return "stop";
    }
    const now = this.clock.now();
    const afterSeq = await latestEventSeq(this.jobs);
    let entries: PendingEntry[];
    try {
      entries = timers.map((op) => {
        const base = { stepId: op.id, name: op.displayName ?? op.id };
        if (op.op === "Sleep") return { ...base, type: "sleep", at: sleepUntil(op.name ?? "", now) };
        const condition = typeof op.opts?.if === "string" ? op.opts.if : null;
        if (condition) compileExpression(condition);
        return {
          ...base,
          type: "wait",
          at:
            now +
            parseDuration(
              typeof op.opts?.timeout === "string" || typeof op.opts?.timeout === "number"
                ? String(op.opts.timeout)
                : "",
            ),
          event: op.name,
          if: condition,
          afterSeq,
        };
      });
    } catch (error) {
      await failRun(lease, { name: "NonRetriableError", message: (error as Error).message });
      return "stop";
    }
    await park(lease, entries);
    return "stop";
  }
}
