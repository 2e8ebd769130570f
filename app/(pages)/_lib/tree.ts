export interface TreeEntry {
  name: string;
  path: string;
  kind: "dir" | "file";
}

/** The direct children of `dir` ("" = root) among every file path of a commit: directories first, each sorted by name. */
export function directoryEntries(files: string[], dir: string): TreeEntry[] {
  const prefix = dir === "" ? "" : `${dir}/`;
  const dirs = new Set<string>();
  const entries: TreeEntry[] = [];
  for (const file of files) {
    if (!file.startsWith(prefix)) continue;
    const rest = file.slice(prefix.length);
    const slash = rest.indexOf("/");
    if (slash < 0) entries.push({ name: rest, path: file, kind: "file" });
    else dirs.add(rest.slice(0, slash));
  }
  const byName = (a: TreeEntry, b: TreeEntry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const dirEntries = [...dirs].map((name): TreeEntry => ({ name, path: `${prefix}${name}`, kind: "dir" }));
  return [...dirEntries.sort(byName), ...entries.sort(byName)];
}

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
