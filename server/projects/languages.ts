import { registerCache } from "@/server/caches";
import { readCommit, runGitBytes, type Repo } from "@/server/git";

/**
 * Languages by file extension (names and colours as GitHub's linguist has them). Programming and
 * markup languages only: data (JSON, YAML), prose (Markdown, text) and binary files (images,
 * archives: no entry) are not counted, as GitHub's language bar leaves them out.
 */
const LANGUAGES: Record<string, { name: string; color: string }> = {};
const language = (name: string, color: string, extensions: string[]) => {
  for (const extension of extensions) LANGUAGES[extension] = { name, color };
};
language("TypeScript", "#3178c6", ["ts", "tsx", "mts", "cts"]);
language("JavaScript", "#f1e05a", ["js", "jsx", "mjs", "cjs"]);
language("Python", "#3572a5", ["py", "pyi"]);
language("Go", "#00add8", ["go"]);
language("Rust", "#dea584", ["rs"]);
language("Java", "#b07219", ["java"]);
language("Kotlin", "#a97bff", ["kt", "kts"]);
language("Scala", "#c22d40", ["scala", "sc"]);
language("C", "#555555", ["c", "h"]);
language("C++", "#f34b7d", ["cc", "cpp", "cxx", "hpp", "hh", "hxx"]);
language("C#", "#178600", ["cs"]);
language("Objective-C", "#438eff", ["m"]);
language("Swift", "#f05138", ["swift"]);
language("Ruby", "#701516", ["rb"]);
language("PHP", "#4f5d95", ["php"]);
language("Perl", "#0298c3", ["pl", "pm"]);
language("Lua", "#000080", ["lua"]);
language("Shell", "#89e051", ["sh", "bash", "zsh"]);
language("PowerShell", "#012456", ["ps1", "psm1"]);
language("Haskell", "#5e5086", ["hs"]);
language("OCaml", "#ef7a08", ["ml", "mli"]);
language("Elixir", "#6e4a7e", ["ex", "exs"]);
language("Erlang", "#b83998", ["erl", "hrl"]);
language("Clojure", "#db5855", ["clj", "cljs", "cljc"]);
language("Dart", "#00b4ab", ["dart"]);
language("Zig", "#ec915c", ["zig"]);
language("Nix", "#7e7eff", ["nix"]);
language("R", "#198ce7", ["r"]);
language("Julia", "#a270ba", ["jl"]);
language("SQL", "#e38c00", ["sql"]);
language("HTML", "#e34c26", ["html", "htm"]);
language("CSS", "#663399", ["css"]);
language("SCSS", "#c6538c", ["scss"]);
language("Vue", "#41b883", ["vue"]);
language("Svelte", "#ff3e00", ["svelte"]);
language("Dockerfile", "#384d54", ["dockerfile"]);
language("Makefile", "#427819", ["mk"]);

/** Files named so, whatever their extension. */
const BY_NAME: Record<string, string> = { dockerfile: "dockerfile", makefile: "mk", gnumakefile: "mk" };

/** Third-party or generated: not the project's own code. */
const VENDORED =
  /(^|\/)(node_modules|vendor|third[_-]party|bower_components|dist|\.yarn)\/|\.min\.(js|css)$|(^|\/)(package-lock\.json|pnpm-lock\.yaml|yarn\.lock)$|\.(pb|generated)\.\w+$/;

export function languageOf(path: string): { name: string; color: string } | null {
  if (VENDORED.test(path)) return null;
  const file = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const named = BY_NAME[file];
  if (named) return LANGUAGES[named];
  const dot = file.lastIndexOf(".");
  return dot > 0 ? (LANGUAGES[file.slice(dot + 1)] ?? null) : null;
}

export interface LanguageShare {
  name: string;
  color: string;
  bytes: number;
  /** Of the counted bytes, rounded to a tenth. */
  percent: number;
}

// Per root tree id: a tree's answer never changes, and a branch move makes a new key.
const CACHE_MAX = 500;
const byTree = new Map<string, LanguageShare[]>();
registerCache("projects.languages", {
  entries: () => byTree.size,
  limit: CACHE_MAX,
  bound: `the ${CACHE_MAX} trees read last`,
});

/** Bytes per language of a commit's tree (blobs' sizes from one `git ls-tree -r -l`), largest first. */
export async function languageShares(
  repo: Repo,
  commit: string,
): Promise<{ tree: string; languages: LanguageShare[] }> {
  const { tree } = await readCommit(repo, commit);
  const cached = byTree.get(tree);
  if (cached) {
    byTree.delete(tree);
    byTree.set(tree, cached);
    return { tree, languages: cached };
  }
  const { stdout } = await runGitBytes(["ls-tree", "-r", "-l", "-z", tree], { gitdir: repo.gitdir });
  const bytes = new Map<string, { color: string; bytes: number }>();
  for (const record of stdout.toString("utf8").split("\0")) {
    // "<mode> blob <oid> <size padded>\t<path>"; submodules ("commit", size "-") and symlinks count for nothing.
    const tab = record.indexOf("\t");
    if (tab < 0) continue;
    const [mode, type, , size] = record.slice(0, tab).split(/ +/);
    if (type !== "blob" || mode === "120000") continue;
    const found = languageOf(record.slice(tab + 1));
    if (!found) continue;
    const entry = bytes.get(found.name) ?? { color: found.color, bytes: 0 };
    entry.bytes += Number(size);
    bytes.set(found.name, entry);
  }
  const total = [...bytes.values()].reduce((sum, entry) => sum + entry.bytes, 0);
  const languages = [...bytes]
    .filter(([, entry]) => entry.bytes > 0)
    .map(([name, entry]) => ({ name, ...entry, percent: Math.round((entry.bytes / total) * 1000) / 10 }))
    .sort((a, b) => b.bytes - a.bytes || a.name.localeCompare(b.name));
  byTree.set(tree, languages);
  if (byTree.size > CACHE_MAX) byTree.delete(byTree.keys().next().value!);
  return { tree, languages };
}
