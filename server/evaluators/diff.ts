import type { ChangeDiff } from "./types";
import { type DiffPolicy, pathMatcher } from "@/server/policy";
import { verdictOf, type Finding } from "./types";

/** The diff evaluator: the change's size and the paths it touches against the policy's limits. */
export function evaluateDiff(
  diff: ChangeDiff,
  policy: DiffPolicy,
): { status: "passed" | "failed"; findings: Finding[] } {
  const findings: Finding[] = [];
  if (policy.maxFiles !== undefined && diff.files.length > policy.maxFiles) {
    findings.push({
      rule: "maxFiles",
      message: `The change touches ${diff.files.length} files; the policy allows at most ${policy.maxFiles}`,
    });
  }
  const lines = diff.additions + diff.deletions;
  if (policy.maxLines !== undefined && lines > policy.maxLines) {
    findings.push({
      rule: "maxLines",
      message: `The change adds and deletes ${lines} lines; the policy allows at most ${policy.maxLines}`,
    });
  }
  const forbidden = pathMatcher(policy.forbiddenPaths);
  const allowed = policy.allowedPaths ? pathMatcher(policy.allowedPaths) : null;
  for (const file of diff.files) {
    if (forbidden(file.path))
      findings.push({ rule: "forbiddenPaths", file: file.path, message: `${file.path} is a forbidden path` });
    else if (allowed && !allowed(file.path))
      findings.push({ rule: "allowedPaths", file: file.path, message: `${file.path} is outside the allowed paths` });
    if (policy.maxFileBytes !== undefined && file.bytes > policy.maxFileBytes) {
      findings.push({
        rule: "maxFileBytes",
        file: file.path,
        message: `${file.path} is ${file.bytes} bytes; the policy allows at most ${policy.maxFileBytes}`,
      });
    }
  }
  return { status: verdictOf(findings), findings };
}
