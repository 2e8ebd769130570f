import type { EvalRunResult, Finding } from "./types";

const PASS = new Set(["pass", "passed", "approve", "accept"]);
const FAIL = new Set(["fail", "failed", "reject", "request_changes"]);

function toFinding(issue: unknown): Finding | null {
  if (typeof issue === "string") return { message: issue.slice(0, 2000) };
  if (issue && typeof issue === "object" && typeof (issue as Finding).message === "string") {
    const { message, file, line } = issue as Finding;
    return {
      message: message.slice(0, 2000),
      ...(typeof file === "string" ? { file } : {}),
      ...(Number.isInteger(line) && (line as number) > 0 ? { line } : {}),
    };
  }
  return null;
}

/** Reads `{"verdict": ..., "issues": [...]}` from an external evaluator (webhook reply, model output). */
export function parseVerdictReply(text: string, who: string): Pick<EvalRunResult, "status" | "findings"> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { status: "error", findings: [{ message: `${who} did not reply with JSON` }] };
  }
  const verdict =
    typeof (body as { verdict?: unknown })?.verdict === "string"
      ? (body as { verdict: string }).verdict.toLowerCase()
      : "";
  const rawIssues = (body as { issues?: unknown }).issues;
  const findings = (Array.isArray(rawIssues) ? rawIssues : [])
    .slice(0, 100)
    .map(toFinding)
    .filter((f): f is Finding => f !== null);
  if (PASS.has(verdict)) return { status: "passed", findings };
  if (FAIL.has(verdict))
    return { status: "failed", findings: findings.length ? findings : [{ message: `${who} rejected the change` }] };
  return { status: "error", findings: [{ message: `${who} replied without a verdict ("pass" or "fail")` }] };
}
