/**
 * Rejects a change as another instance would: through a connection of its own, recording the event
 * and announcing it on the database's channel in the same transaction (PostgreSQL only).
 */
export async function rejectElsewhere(
  databaseUrl: string | undefined,
  change: { id: string; projectId: string },
): Promise<void> {
  if (!databaseUrl) throw new Error("rejectElsewhere needs PostgreSQL");
  const pg = (await import("pg")).default;
  const other = new pg.Client({ connectionString: databaseUrl });
  await other.connect();
  try {
    await other.query("BEGIN");
    await other.query(`UPDATE "Change" SET status = 'rejected', "rejectedAt" = now() WHERE id = $1`, [change.id]);
    await other.query(
      `INSERT INTO "DomainEvent" (id, "projectId", kind, actor, data) VALUES (gen_random_uuid(), $1, 'change.rejected', 'system', $2)`,
      [change.projectId, JSON.stringify({ changeId: change.id })],
    );
    await other.query("SELECT pg_notify('svc_invalidate', $1)", [`change-events\n${change.id}`]);
    await other.query("COMMIT");
  } finally {
    await other.end();
  }
}
