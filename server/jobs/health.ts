export interface QueueHealth {
  ok: boolean;
  detail: string;
}

/** The background-job queue's health; the executor (issue 3) reports stalls here. */
export async function queueHealth(): Promise<QueueHealth> {
  return { ok: true, detail: "no executor running" };
}
