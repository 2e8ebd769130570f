// The area's front door: other areas import from here, never from inside the area.
export { closeDatabase, database, db } from "./client";
export { dateFromJson, insertRowsSql, isoTimestampSql } from "./sql";
export type { Database, Db, DbOrTx, Tx } from "./client";
export type { DatabaseMemory } from "./pglite-thread";
export type { Turns } from "./turns";
export {
  announceInvalidation,
  announceOnCommit,
  announcement,
  announcementsSql,
  startInvalidationListener,
} from "./invalidation";
export { olderThan, NEWEST_FIRST } from "./cursor";
export { onInvalidation } from "./topics";
export type { InvalidationTopic } from "./topics";
