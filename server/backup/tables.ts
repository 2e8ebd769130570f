import type { Tx } from "@/server/db";

/**
 * Tables a backup leaves out: the migrations ledger (the code brings its own), the bookkeeping of
 * backups and restores themselves, and the job executor's runtime state (runs in flight belong to
 * the instance that ran them; cron schedules are recreated at start-up).
 */
const LEFT_OUT = new Set(["_prisma_migrations", "Backup", "Restore", "JobRun", "JobStep", "JobEvent", "JobSchedule"]);

export const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Every table of the schema a backup holds, read from the catalog (so tables other areas add are
 * included without edits), parents before children: a restore inserts in this order and deletes in
 * the reverse. A table's references to itself are left to PostgreSQL, which checks a statement's
 * foreign keys when the statement ends.
 */
export async function tablesInDependencyOrder(tx: Tx): Promise<string[]> {
  const tables = (
    await tx.$queryRawUnsafe<Array<{ name: string }>>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
    )
  )
    .map((row) => row.name)
    .filter((name) => !LEFT_OUT.has(name));
  const edges = await tx.$queryRawUnsafe<Array<{ child: string; parent: string }>>(
    `SELECT cc.relname AS child, pc.relname AS parent FROM pg_constraint k
       JOIN pg_class cc ON cc.oid = k.conrelid JOIN pg_class pc ON pc.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = cc.relnamespace
      WHERE k.contype = 'f' AND n.nspname = current_schema()`,
  );
  const parents = new Map(tables.map((table) => [table, new Set<string>()]));
  for (const { child, parent } of edges) {
    if (child !== parent && parents.has(child) && parents.has(parent)) parents.get(child)!.add(parent);
  }
  const ordered: string[] = [];
  const placed = new Set<string>();
  while (ordered.length < tables.length) {
    const ready = tables.filter(
      (table) => !placed.has(table) && [...parents.get(table)!].every((parent) => placed.has(parent)),
    );
    if (ready.length === 0)
      throw new Error(`Foreign keys form a cycle among ${tables.filter((table) => !placed.has(table)).join(", ")}`);
    for (const table of ready) {
      ordered.push(table);
      placed.add(table);
    }
  }
  return ordered;
}

/** Columns filled from a sequence (autoincrement), to move each sequence past the restored rows. */
export async function sequenceColumns(tx: Tx): Promise<Array<{ table: string; column: string }>> {
  return tx.$queryRawUnsafe<Array<{ table: string; column: string }>>(
    `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
      WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
  );
}
