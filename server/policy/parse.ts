import { parseDocument } from "yaml";
import { policySchema, type Policy } from "./schema";

export const POLICY_PATH = ".svc/policy.yml";

export type PolicyResult = { ok: true; policy: Policy } | { ok: false; error: string };

/** The policy of a project without a policy file. */
export const defaultPolicy = (): Policy => policySchema.parse({});

/**
 * Parses the text of .svc/policy.yml (null: no file, the defaults). Any problem is reported with
 * where it is; an invalid file never falls back to defaults.
 */
export function parsePolicy(text: string | null): PolicyResult {
  if (text === null) return { ok: true, policy: defaultPolicy() };
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return { ok: false, error: `${POLICY_PATH} is not valid YAML: ${doc.errors[0].message.split("\n")[0]}` };
  }
  const value: unknown = doc.toJS() ?? {};
  if (typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: `${POLICY_PATH} must be a mapping of policy keys` };
  }
  const parsed = policySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length ? issue.path.join(".") : "(top level)";
    const unknown =
      issue.code === "unrecognized_keys"
        ? `: unknown key ${issue.keys.map((k) => `"${k}"`).join(", ")}`
        : `: ${issue.message}`;
    return { ok: false, error: `${POLICY_PATH} is invalid at ${where}${unknown}` };
  }
  return { ok: true, policy: parsed.data };
}
