/**
 * A timestamp column read through the driver as the client's `Date#toISOString()` gives it (columns
 * hold UTC to the millisecond), so a version read by raw SQL matches one computed from a client row
 * whatever the driver makes of timestamps.
 */
export const isoTimestampSql = (column: string) => `to_char("${column}", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * One INSERT of any number of rows, always of one shape: the rows travel as one JSON array (the
 * statement's `$1`, keys named as the columns), inserted in the order listed, so sequence defaults
 * follow it. Prisma's query compiler compiles every `createMany` and `createManyAndReturn` anew,
 * whatever its size (its plans are cached for other queries only): ~2 ms of CPU each on the hot
 * paths that record events and land changes. `columns` maps each column to its SQL type; `suffix`
 * is appended as is (`ON CONFLICT ...`, `RETURNING ...`); `rows` is the parameter holding the JSON
 * (another than `$1` when the INSERT is one of several in a statement).
 */
export function insertRowsSql(table: string, columns: Record<string, string>, suffix = "", rows = "$1"): string {
  const names = Object.keys(columns).map((column) => `"${column}"`);
  const types = Object.entries(columns).map(([column, type]) => `"${column}" ${type}`);
  return `INSERT INTO "${table}" (${names.join(", ")})
SELECT ${names.map((name) => `r.${name}`).join(", ")}
FROM ROWS FROM (jsonb_to_recordset(${rows}::jsonb) AS (${types.join(", ")})) WITH ORDINALITY AS r(${names.join(", ")}, position)
ORDER BY r.position ${suffix}`;
}

/** A timestamp column as `to_jsonb` shows it (UTC without a zone: `2026-01-02T03:04:05.123`) as the client's Date. */
export const dateFromJson = (value: string) => new Date(`${value}Z`);
