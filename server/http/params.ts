import { z } from "zod";
import { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, NAME_PATTERN } from "@/server/limits";

// Schemas are built per use (functions, not shared instances): trpc-to-openapi mutates shared
// schemas by switching on coercion at the first REST call.

/** A path segment: trpc-to-openapi hands them over still percent-encoded. */
export const pathSegment = () =>
  z
    .string()
    .min(1)
    .transform((value, ctx) => {
      try {
        return decodeURIComponent(value);
      } catch {
        ctx.addIssue({ code: "custom", message: "malformed percent-encoding" });
        return z.NEVER;
      }
    });

/**
 * A NUL, or a UTF-16 surrogate without its pair (JSON's "\udc00"): PostgreSQL refuses both (a text
 * column the NUL, a jsonb value the escaped surrogate) and a file name or UTF-8 cannot hold the latter.
 */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const isStorableText = (value: string) => !UNSTORABLE.test(value);

/** A string PostgreSQL can store, and git as a name (it would otherwise be a 500 or a name silently changed). */
export const text = () => z.string().refine(isStorableText, "must not contain NUL or unpaired surrogate characters");

/** `@alice` in a `{namespace}` segment: returns `alice`. */
export const namespaceSegment = () =>
  pathSegment().pipe(
    z
      .string()
      .regex(/^@[^/@]+$/, "namespace must start with @")
      .transform((value) => value.slice(1)),
  );

/** A 1-64 character alphanumeric slug (project and workspace names). */
export const nameSlug = () =>
  z.string().regex(NAME_PATTERN, "must be a 1-64 character alphanumeric slug (letters, digits, - and _)");

/**
 * A boolean: JSON `true`/`false`, or the strings a query string or form sends (`true`, `false`, and
 * `on` for a checked checkbox). Literals, not `z.boolean()`, which trpc-to-openapi would coerce (`1`).
 */
export const booleanish = () =>
  z.union([z.literal(true), z.literal(false), z.enum(["true", "false", "on"]).transform((value) => value !== "false")]);

/** A bounded integer query parameter with a default (typed as always present after parsing). */
export const boundedInt = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

export const listLimit = () => boundedInt(1, LIST_LIMIT_MAX, LIST_LIMIT_DEFAULT);
export const listOffset = () => boundedInt(0, Number.MAX_SAFE_INTEGER, 0);

/**
 * A response schema that the OpenAPI document names as a component (`$ref`): one instance per id,
 * built on first use (zod refuses two different schemas with one id in a document). For outputs
 * only: inputs stay one instance per procedure.
 */
export function namedSchema<T extends z.ZodType>(id: string, build: () => T): () => T {
  let schema: T | undefined;
  return () => (schema ??= build().meta({ id }));
}
