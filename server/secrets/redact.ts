/** What a secret value becomes in logs. */
export const REDACTED = "***";

/**
 * `text` with every value, and the base64 and base64url forms of every value, replaced by `***`.
 * Longer values go first, so a value containing another is not left half shown.
 */
export function redactValues(text: string, values: Iterable<string>): string {
  const forms = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    const bytes = Buffer.from(value, "utf8");
    for (const form of [
      value,
      bytes.toString("base64"),
      bytes.toString("base64").replace(/=+$/, ""),
      bytes.toString("base64url"),
    ])
      forms.add(form);
  }
  let redacted = text;
  for (const form of [...forms].sort((a, b) => b.length - a.length)) redacted = redacted.split(form).join(REDACTED);
  return redacted;
}
