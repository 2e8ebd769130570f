/**
 * The rows after `cursor` in the order `createdAt desc, id desc`: the next page of a list paged by
 * a `before` cursor (the previous page's last row). Rows written in the same millisecond (a batch)
 * are told apart by their id, so none is skipped or repeated at a page boundary.
 */
export const olderThan = (cursor: { createdAt: Date; id: string }) => ({
  OR: [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }],
});

/** The order `olderThan` pages through. */
export const NEWEST_FIRST = [{ createdAt: "desc" as const }, { id: "desc" as const }];
