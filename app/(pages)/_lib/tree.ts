/** Where a path is shown: `/@ns/slug/tree|blob/<ref>/<path>`, every segment encoded. */
export function pathUrl(base: string, kind: "tree" | "blob", ref: string, path: string): string {
  const segments = path === "" ? [] : path.split("/").map(encodeURIComponent);
  return [`${base}/${kind}/${encodeURIComponent(ref)}`, ...segments].join("/");
}

/** The page number of a `?page=` query value: a positive integer, else 1. */
export function pageNumber(value: string | string[] | undefined): number {
  const page = Number(typeof value === "string" ? value : "1");
  return Number.isInteger(page) && page >= 1 ? page : 1;
}
