/** Where a path is shown: `/@ns/slug/tree|blob|blame/<ref>/<path>`, every segment encoded. */
export function pathUrl(base: string, kind: "tree" | "blob" | "blame", ref: string, path: string): string {
  const segments = path === "" ? [] : path.split("/").map(encodeURIComponent);
  return [`${base}/${kind}/${encodeURIComponent(ref)}`, ...segments].join("/");
}

/** The page number of a `?page=` query value: a positive integer, else 1. */
export function pageNumber(value: string | string[] | undefined): number {
  const page = Number(typeof value === "string" ? value : "1");
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** A file's bytes through the API's raw route (`/api/projects/@ns/slug/raw?ref=&path=`). */
export function rawUrl(base: string, ref: string, path: string): string {
  return `/api/projects${base}/raw?${new URLSearchParams({ ref, path })}`;
}

/** The links beside a file: Raw, Blame and History (the branch log: the log has no path filter). */
export function fileLinks(base: string, ref: string, path: string) {
  return {
    raw: rawUrl(base, ref, path),
    blame: pathUrl(base, "blame", ref, path),
    blob: pathUrl(base, "blob", ref, path),
    history: `${base}/commits/${encodeURIComponent(ref)}`,
  };
}

/** The compare page of two refs: `/@ns/slug/compare/<base>...<head>`. */
export function compareUrl(base: string, from: string, to: string): string {
  return `${base}/compare/${encodeURIComponent(from)}...${encodeURIComponent(to)}`;
}
