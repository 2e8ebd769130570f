/**
 * A timestamp column read through the driver as the client's `Date#toISOString()` gives it (columns
 * hold UTC to the millisecond), so a version read by raw SQL matches one computed from a client row
 * whatever the driver makes of timestamps.
 */
export const isoTimestampSql = (column: string) => `to_char("${column}", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
