import type { ProjectImport, ProjectSource } from "@/server/generated/prisma/client";
import type { ImportStatus } from "@/server/generated/prisma/enums";

export const IN_FLIGHT: readonly ImportStatus[] = ["queued", "running", "cancelling"];

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export const sourceView = (source: ProjectSource) => ({
  provider: source.provider,
  owner: source.owner,
  repo: source.repo,
  url: source.url,
  branch: source.branch,
});

/** Import progress (status and stream routes). */
export function importView(row: ProjectImport, source: ProjectSource) {
  const total = row.totalObjects ?? 0;
  return {
    importId: row.id,
    status: row.status,
    phase: row.status === "running" ? row.phase : null,
    progress:
      row.receivedObjects !== null && row.totalObjects !== null
        ? {
            receivedObjects: row.receivedObjects,
            totalObjects: row.totalObjects,
            percent: total > 0 ? Math.floor((row.receivedObjects * 100) / total) : 100,
          }
        : null,
    failureCategory: row.failureCategory,
    error: row.error,
    source: sourceView(source),
    startedAt: iso(row.startedAt),
    updatedAt: row.updatedAt.toISOString(),
    completedAt: iso(row.completedAt),
  };
}
