import { z } from "zod";
import type { DbOrTx } from "@/server/db";
import { conflict } from "@/server/errors";

/**
 * Takes the next number of a project's one index, which issues and changes share (as Gitea's issues
 * and pull requests do), so `#12` names one thing. The row lock of the UPDATE serializes concurrent
 * creators; inside a transaction a rollback gives the number back. A project marked for deletion
 * allocates nothing.
 */
export async function allocateProjectNumber(client: DbOrTx, projectId: string): Promise<number> {
  const rows = await client.$queryRaw<Array<{ lastIssueNumber: number }>>`
    UPDATE "Project" SET "lastIssueNumber" = "lastIssueNumber" + 1, "updatedAt" = now()
    WHERE "id" = ${projectId}::uuid AND "deletingAt" IS NULL
    RETURNING "lastIssueNumber"`;
  if (rows.length === 0) throw conflict("The project is being deleted", "TARGET_DELETING");
  return Number(rows[0].lastIssueNumber);
}

/** A number of that index in a URL or input: the column is a 32-bit integer, so larger ones are a 400, not a 500. */
export const projectNumber = () => z.coerce.number().int().min(1).max(2_147_483_647);
