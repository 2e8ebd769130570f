import type { paths } from "../schema.js";

type ChangeState = paths["/api/changes/{id}"]["get"]["responses"][200]["content"]["application/json"];

const UNFINISHED = new Set(["queued", "running"]);

interface LogOptions {
  baseUrl: string;
  token?: string;
  follow: boolean;
  write: (text: string) => void;
  fetch?: typeof globalThis.fetch;
  /** Wait before reconnecting a dropped live log (default 1 s). */
  retryMs?: number;
}

const headersOf = (token: string | undefined, accept: string) => ({
  accept,
  ...(token ? { authorization: `Bearer ${token}` } : {}),
});

async function refused(response: Response): Promise<Error> {
  const body = (await response.json().catch(() => ({}))) as { error?: string; code?: string };
  return Object.assign(new Error(`${response.status} ${body.error ?? response.statusText}`), { code: body.code });
}

/**
 * Follows a run's live log (GET .../log as text/event-stream) to its `end` event, writing each
 * chunk and each notice of a cut; a dropped connection resumes at the last byte offset (Last-Event-ID). Answers the status.
 */
async function followRun(url: string, options: LogOptions): Promise<string> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  let offset: string | undefined;
  for (;;) {
    try {
      const response = await fetchFn(url, {
        headers: { ...headersOf(options.token, "text/event-stream"), ...(offset ? { "last-event-id": offset } : {}) },
      });
      if (!response.ok || !response.body) throw await refused(response);
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const fields: Record<string, string> = {};
          for (const line of buffer.slice(0, end).split("\n")) {
            const colon = line.indexOf(":");
            if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).trimStart();
          }
          buffer = buffer.slice(end + 2);
          // A `truncated` event is the runner's line saying the log's head was cut (RUNNER_LOG_MB).
          if (fields.event === "log" || fields.event === "truncated") {
            options.write(JSON.parse(fields.data) as string);
            offset = fields.id;
          } else if (fields.event === "end") return (JSON.parse(fields.data) as { status: string }).status;
        }
      }
    } catch (error) {
      if ((error as { code?: string }).code !== undefined || /^\d{3} /.test((error as Error).message)) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.retryMs ?? 1_000));
  }
}

/**
 * `change logs ID [--follow]`: each run of the change's latest round, a header line then its log;
 * with --follow, runs still going are streamed live until they end. Answers the runs' final statuses.
 */
export async function changeLogs(
  changeId: string,
  options: LogOptions,
): Promise<Array<{ evaluator: string; status: string }>> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const base = `${options.baseUrl.replace(/\/+$/, "")}/api/changes/${encodeURIComponent(changeId)}`;
  const response = await fetchFn(base, { headers: headersOf(options.token, "application/json") });
  if (!response.ok) throw await refused(response);
  const state = (await response.json()) as ChangeState;
  const ended: Array<{ evaluator: string; status: string }> = [];
  for (const run of state.evalRuns) {
    const url = `${base}/evaluations/${run.id}/log`;
    options.write(`== ${run.evaluator} (${run.status}) ==\n`);
    if (options.follow && UNFINISHED.has(run.status)) {
      const status = await followRun(url, options);
      options.write(`== ${run.evaluator}: ${status} ==\n`);
      ended.push({ evaluator: run.evaluator, status });
      continue;
    }
    const log = await fetchFn(url, { headers: headersOf(options.token, "text/plain") });
    if (!log.ok) throw await refused(log);
    options.write(await log.text());
    ended.push({ evaluator: run.evaluator, status: run.status });
  }
  return ended;
}
