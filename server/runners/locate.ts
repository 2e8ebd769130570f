import fs from "node:fs";
import path from "node:path";
import { SANDBOX_SRC } from "./bwrap";

/** Answers whether a path relative to the checkout is one of its files, and finds files by their end. */
export interface Locator {
  exists(relative: string): boolean;
  bySuffix(suffix: string): string | undefined;
}

const SKIPPED = new Set([".git", "node_modules"]);
const FILES_MAX = 50_000;

/** A locator over the run's checkout on the host; the file list is read once, when first needed. */
export function checkoutLocator(src: string): Locator {
  let files: { list: string[]; set: Set<string> } | undefined;
  const read = () => {
    if (!files) {
      const list = listFiles(src);
      files = { list, set: new Set(list) };
    }
    return files;
  };
  return {
    exists: (relative) => read().set.has(relative),
    bySuffix: (suffix) => {
      const matches = read().list.filter((file) => file === suffix || file.endsWith(`/${suffix}`));
      return matches.length === 1 ? matches[0] : undefined;
    },
  };
}

/** The checkout's regular files (relative, `/`-separated), never following symlinks. */
export function listFiles(src: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (out.length >= FILES_MAX) return;
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory() && !SKIPPED.has(entry.name)) walk(path.join(dir, entry.name), relative);
      else if (entry.isFile()) out.push(relative);
    }
  };
  walk(src, "");
  return out;
}

/** `file:line` places in text: absolute sandbox paths, file URLs and relative paths. */
const PLACE = /(?:file:\/\/)?((?:\/|\.{0,2}\/)?[\w@+.-]+(?:\/[\w@+.-]+)*\.[A-Za-z0-9]{1,6}):(\d+)/g;

/** A path as the repository names it: the sandbox's /src prefix and leading ./ dropped. */
export function repoRelative(file: string): string {
  const prefix = `${SANDBOX_SRC}/`;
  let relative = file.startsWith("file://") ? file.slice("file://".length) : file;
  if (relative.startsWith(prefix)) relative = relative.slice(prefix.length);
  return relative.replace(/^(\.\/)+/, "");
}

/**
 * The first place, in `texts` in order, that names a file of the checkout (preferring `preferred`,
 * the test's own file), as {file, line}; else just the preferred file when it exists.
 */
export function locate(texts: string[], locator: Locator, preferred?: string): { file?: string; line?: number } {
  const wanted = preferred ? resolve(repoRelative(preferred), locator) : undefined;
  let first: { file: string; line: number } | undefined;
  for (const text of texts) {
    for (const match of text.matchAll(PLACE)) {
      const file = resolve(repoRelative(match[1]), locator);
      if (!file || file.startsWith("node_modules/")) continue;
      const place = { file, line: Number(match[2]) };
      if (!wanted || file === wanted) return place;
      first ??= place;
    }
  }
  if (wanted) return { file: wanted };
  return first ?? {};
}

function resolve(relative: string, locator: Locator): string | undefined {
  if (relative.startsWith("../")) return undefined;
  if (relative.startsWith("/")) {
    // A path of another machine (a report written elsewhere): the longest end that is a file here.
    const parts = relative.split("/").filter(Boolean);
    for (let i = 0; i < parts.length; i++)
      if (locator.exists(parts.slice(i).join("/"))) return parts.slice(i).join("/");
    return undefined;
  }
  if (locator.exists(relative)) return relative;
  // go test and pytest print paths relative to the package or the test's directory.
  return locator.bySuffix(relative);
}
