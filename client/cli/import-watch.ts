import type { components, paths, SvcClient } from "../index.js";

type ImportProgress =
  paths["/api/projects/{namespace}/{slug}/import/status"]["get"]["responses"][200]["content"]["application/json"];
type SvcError = components["schemas"]["Error"];

/** The import states after which nothing changes (the spec's Import progress). */
const FINAL = new Set<ImportProgress["status"]>(["completed", "failed", "cancelled"]);

/** One progress line: the status, the phase and the share of objects received, when known. */
export function progressLine(progress: ImportProgress): string {
  const parts: string[] = [progress.status];
  if (progress.phase) parts.push(progress.phase);
  if (progress.progress)
    parts.push(
      `${progress.progress.percent}% (${progress.progress.receivedObjects}/${progress.progress.totalObjects} objects)`,
    );
  if (progress.failureCategory) parts.push(progress.failureCategory);
  return parts.join(" ");
}

/**
 * Polls GET .../import/status every `intervalMs` until the import completes, fails or is cancelled,
 * calling `print` with each progress line that differs from the last; answers the final progress.
 * A refused poll (404, 401...) throws with the service's `{error, code}`.
 */
export async function watchImport(
  svc: SvcClient,
  project: { namespace: string; slug: string },
  intervalMs: number,
  print: (line: string) => void,
): Promise<ImportProgress> {
  let last: string | undefined;
  for (;;) {
    const { data, error, response } = await svc.GET("/api/projects/{namespace}/{slug}/import/status", {
      params: { path: project },
    });
    if (!data) {
      const body = (error ?? {}) as Partial<SvcError>;
      throw Object.assign(new Error(`${response.status} ${body.error ?? response.statusText}`), { code: body.code });
    }
    const line = progressLine(data);
    if (line !== last) print(line);
    last = line;
    if (FINAL.has(data.status)) return data;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
