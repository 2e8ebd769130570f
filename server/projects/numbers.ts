import { z } from "zod";
import type { DbOrTx } from "@/server/db";
import { conflict } from "@/server/errors";

/**
 * Takes the next number of one of a project's two indexes: issues are numbered from 1 on their own
 * (the spec's), changes on theirs (GitLab's issues and merge requests: `#12` and `!12`). The row
 * lock of the UPDATE serializes concurrent creators; inside a transaction a rollback gives the
 * number back. A project marked for deletion allocates nothing.
 */
export async function allocateProjectNumber(
  client: DbOrTx,
  projectId: string,
  index: "issues" | "changes",
): Promise<number> {
  const rows =
    index === "issues"
      ? await client.$queryRaw<Array<{ number: number }>>`
    UPDATE "Project" SET "lastIssueNumber" = "lastIssueNumber" + 1, "updatedAt" = now()
    WHERE "id" = ${projectId}::uuid AND "deletingAt" IS NULL
    RETURNING "lastIssueNumber" AS "number"`
      : await client.$queryRaw<Array<{ number: number }>>`
    UPDATE "Project" SET "lastChangeNumber" = "lastChangeNumber" + 1
    WHERE "id" = ${projectId}::uuid AND "deletingAt" IS NULL
    RETURNING "lastChangeNumber" AS "number"`;
  if (rows.length === 0) throw conflict("The project is being deleted", "TARGET_DELETING");
  return Number(rows[0].number);
}

/** A number of either index in a URL or input: the column is a 32-bit integer, so larger ones are a 400, not a 500. */
export const projectNumber = () => z.coerce.number().int().min(1).max(2_147_483_647);
