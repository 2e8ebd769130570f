import type { Change } from "@/server/generated/prisma/client";
import type { DbOrTx } from "@/server/db";

export interface ConflictingMerge {
  change: Pick<Change, "id" | "baseSha" | "tipSha">;
  /** The default branch's head the change failed to merge onto. */
  head: string;
  files: string[];
}

/**
 * Records merges that conflicted (a single merge's or a batch's), so each can be resolved later
 * through POST /api/projects/conflicts/{id}/resolve. Returns the conflict ids in input order.
 */
export async function recordConflicts(
  client: DbOrTx,
  projectId: string,
  conflicts: ConflictingMerge[],
): Promise<string[]> {
  if (conflicts.length === 0) return [];
  const rows = await client.conflict.createManyAndReturn({
    data: conflicts.map(({ change, head, files }) => ({
      projectId,
      changeId: change.id,
      baseSha: change.baseSha,
      headSha: head,
      tipSha: change.tipSha,
      files,
    })),
    select: { id: true },
  });
  return rows.map((row) => row.id);
}
