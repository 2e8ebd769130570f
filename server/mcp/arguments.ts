import { invalid } from "@/server/errors";

/** A NUL, or a UTF-16 surrogate without its pair (JSON's "\ud800"): no procedure can store or send either. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Refuses a tool call whose arguments hold, anywhere (keys or values, at any depth), a string no
 * procedure can take: the 400 VALIDATION_ERROR REST answers for the same input. Checked in the
 * dispatch path, so every tool, those added later included, is covered.
 */
export function assertStorableArguments(value: unknown, path: string[] = []): void {
  if (typeof value === "string") {
    if (UNSTORABLE.test(value)) throw invalid(`Invalid input: ${path.join(".") || "arguments"}: must not contain NUL or unpaired surrogate characters`, "VALIDATION_ERROR");
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => assertStorableArguments(item, [...path, String(index)]));
    return;
  }
  if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      assertStorableArguments(key, path);
      assertStorableArguments(item, [...path, key]);
    }
  }
}
