import type { CliConfig } from "./config";

const TERMINAL = new Set(["completed", "complete", "succeeded", "success", "failed", "cancelled"]);

/**
 * Polls GET /api/projects/{namespace}/{slug}/import/status (the spec's import progress) every
 * `intervalMs` until a terminal status, printing each new status. The route is not in the typed
 * SDK yet (it lands with the imports work), so it is called by path.
 */
export async function watchImport(config: CliConfig, project: { namespace: string; slug: string }, intervalMs: number, print: (line: unknown) => void): Promise<Record<string, unknown>> {
  const url = `${config.url.replace(/\/+$/, "")}/api/projects/${encodeURIComponent(project.namespace)}/${encodeURIComponent(project.slug)}/import/status`;
  let last: string | undefined;
  for (;;) {
    const res = await fetch(url, { headers: config.token ? { Authorization: `Bearer ${config.token}` } : {} });
    const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (!res.ok) throw Object.assign(new Error(String(body.error ?? `HTTP ${res.status}`)), { code: body.code });
    const status = String(body.status ?? "unknown");
    if (status !== last) print(body);
    last = status;
    if (TERMINAL.has(status)) return body;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
