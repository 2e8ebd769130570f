import { readFile, type Repo } from "@/server/git";
import { parsePolicy, POLICY_PATH, type PolicyResult } from "./parse";

/** The policy in force at `commit` (the default branch's tip): .svc/policy.yml, or the defaults without one. */
export async function loadPolicy(repo: Repo, commit: string): Promise<PolicyResult> {
  const file = await readFile(repo, commit, POLICY_PATH);
  if (file === null) return parsePolicy(null);
  if (file.kind !== "content") return { ok: false, error: `${POLICY_PATH} is not a readable text file (${file.kind})` };
  return parsePolicy(file.value);
}
