import { registerCache, processWide } from "@/server/caches";
import { readFile, type Repo } from "@/server/git";
import { parsePolicy, POLICY_PATH, type PolicyResult } from "./parse";

/**
 * Policies parsed, by the file's text: every evaluation and every turn of the merge queue loads
 * the policy at the default branch's tip, which rarely changes, and parsing the YAML and checking it
 * took ~1.3 s of the server's thread in a 2-minute fleet. Results are frozen: callers share them.
 */
const PARSED_KEPT = 32;
const parsed = processWide("policy.parsed", () => new Map<string, PolicyResult>());
registerCache("policy.parsed", {
  entries: () => parsed.size,
  limit: PARSED_KEPT,
  unit: "policy files",
  bound: "least recently used go first past the limit",
});
/** The key of a project without a policy file (no text is this: a NUL cannot be in a YAML file's text). */
const NO_FILE = "\u0000";

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

function parsedPolicy(text: string | null): PolicyResult {
  const key = text ?? NO_FILE;
  const found = parsed.get(key) ?? deepFreeze(parsePolicy(text));
  parsed.delete(key);
  parsed.set(key, found);
  if (parsed.size > PARSED_KEPT) parsed.delete(parsed.keys().next().value!);
  return found;
}

/** The policy in force at `commit` (the default branch's tip): .svc/policy.yml, or the defaults without one. */
export async function loadPolicy(repo: Repo, commit: string): Promise<PolicyResult> {
  const file = await readFile(repo, commit, POLICY_PATH);
  if (file === null) return parsedPolicy(null);
  if (file.kind !== "content") return { ok: false, error: `${POLICY_PATH} is not a readable text file (${file.kind})` };
  return parsedPolicy(file.value);
}
