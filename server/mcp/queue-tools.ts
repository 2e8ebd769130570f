import { z } from "zod";

/**
 * The merge queue's tools (docs/contracts.md#merge-queue), as procedure-tool specs that tools.ts builds like
 * its own. `get_change` shows the queue position through the change read's `queue`.
 */
export const QUEUE_TOOL_SPECS = [
  {
    name: "queue_change",
    procedure: "changes.queue",
    spec: {
      description:
        "Queue a change to land when ready (merge queue: in order, tested on the base it lands on). People only; agents are refused.",
      rename: { change: true },
      extra: () => ({ strategy: z.enum(["merge", "squash"]).optional() }),
      summarize: (r: { changeId: string; position: number; state: string }) =>
        `Change ${r.changeId} is queued at position ${r.position} (${r.state})`,
    },
  },
  {
    name: "get_queue",
    procedure: "changes.projectQueue",
    spec: {
      description: "A project's merge queue in landing order, and how many changes it merged in the last hour.",
      readOnly: true,
      rename: { project: true },
      summarize: (r: { entries: unknown[]; mergedLastHour: number }) =>
        `${r.entries.length} queued; ${r.mergedLastHour} merged in the last hour`,
    },
  },
] as const;
