import { invalid } from "@/server/errors";
import { isStorableText } from "@/server/http";

/**
 * Refuses a tool call whose arguments hold, anywhere (keys or values, at any depth), a string no
 * procedure can take: the 400 VALIDATION_ERROR REST answers for the same input. Checked in the
 * dispatch path, so every tool, those added later included, is covered.
 */
export function assertStorableArguments(value: unknown, path: string[] = []): void {
  if (typeof value === "string") {
    if (!isStorableText(value))
      throw invalid(
        `Invalid input: ${path.join(".") || "arguments"}: must not contain NUL or unpaired surrogate characters`,
        "VALIDATION_ERROR",
      );
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
