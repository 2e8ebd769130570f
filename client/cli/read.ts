// The reading commands (docs/contracts.md#reading-code): diffs, commits, compare, search, blame, tags, archives.
import fs from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { projectParams, type SvcClient } from "../index.js";

export const READ_USAGE = `  change diff ID [--patch] [--limit N] [--offset N]
                                         a change's files and patches (--patch: the unified diff git apply takes)
  commit show @ns/slug SHA               a commit (full id or branch) and its diff
  compare @ns/slug BASE HEAD             head's commits that base lacks, and the diff from their merge base
  search @ns/slug QUERY [--ref REF] [--path GLOB] [--regex] [--case] [--limit N]
  blame @ns/slug PATH [--ref REF]
  tag list @ns/slug
  tag create @ns/slug NAME [--target REF] [-m MESSAGE]
  tag delete @ns/slug NAME
  archive @ns/slug [--ref REF] [--format tar.gz|zip] [-o FILE]
                                         writes the archive (default: the name the service gives it)`;

type Values = Record<string, string | boolean | undefined>;
type Result<T> = { data?: T; error?: unknown; response: Response };

/** What a command printed itself (a patch, a file written): main prints nothing more. */
export const PRINTED = Symbol("printed");

const text = (value: string | boolean | undefined) => (typeof value === "string" ? value : undefined);
const int = (value: string | boolean | undefined) => (typeof value === "string" ? Number(value) : undefined);

/**
 * Runs a reading command, or answers undefined for a command it does not know. `unwrap` and
 * `need` are main's (errors as CliError, missing arguments with the usage).
 */
export async function runReadCommand(
  key: string,
  rest: string[],
  values: Values,
  svc: SvcClient,
  unwrap: <T>(result: Result<T>) => T,
  need: (value: string | boolean | undefined, what: string) => string,
): Promise<unknown> {
  const path = () => projectParams(need(rest[0], "@namespace/slug"));
  switch (key) {
    case "change diff": {
      const id = need(rest[0], "ID");
      if (values.patch) {
        const patch = unwrap(
          await svc.GET("/api/changes/{id}/diff", {
            params: { path: { id }, query: { format: "patch" } },
            parseAs: "text",
          }),
        );
        process.stdout.write(patch);
        return PRINTED;
      }
      return unwrap(
        await svc.GET("/api/changes/{id}/diff", {
          params: { path: { id }, query: { limit: int(values.limit), offset: int(values.offset) } },
        }),
      );
    }
    case "commit show":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/commits/{sha}", {
          params: { path: { ...path(), sha: need(rest[1], "SHA") } },
        }),
      );
    case "compare":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/compare", {
          params: { path: path(), query: { base: need(rest[1], "BASE"), head: need(rest[2], "HEAD") } },
        }),
      );
    case "search":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/search", {
          params: {
            path: path(),
            query: {
              q: need(rest[1], "QUERY"),
              ref: text(values.ref),
              path: text(values.path),
              regex: values.regex ? "true" : "false",
              case: values.case ? "true" : "false",
              limit: int(values.limit),
            },
          },
        }),
      );
    case "blame":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/blame", {
          params: { path: path(), query: { path: need(rest[1], "PATH"), ref: text(values.ref) } },
        }),
      );
    case "tag list":
      return unwrap(await svc.GET("/api/projects/{namespace}/{slug}/tags", { params: { path: path() } }));
    case "tag create":
      return unwrap(
        await svc.POST("/api/projects/{namespace}/{slug}/tags", {
          params: { path: path() },
          body: {
            name: need(rest[1], "NAME"),
            ...(text(values.target) ? { target: text(values.target) } : {}),
            ...(text(values.message) !== undefined ? { message: text(values.message) } : {}),
          },
        }),
      );
    case "tag delete":
      return unwrap(
        await svc.DELETE("/api/projects/{namespace}/{slug}/tags/{name}", {
          params: { path: { ...path(), name: need(rest[1], "NAME") } },
        }),
      );
    case "archive": {
      const format = text(values.format) === "zip" ? "zip" : "tar.gz";
      const result = await svc.GET("/api/projects/{namespace}/{slug}/archive", {
        params: { path: path(), query: { ref: text(values.ref), format } },
        parseAs: "stream",
      });
      const body = unwrap(result as Result<ReadableStream<Uint8Array>>);
      const named = /filename="([^"]+)"/.exec(result.response.headers.get("content-disposition") ?? "")?.[1];
      const file = text(values.output) ?? named ?? `archive.${format}`;
      await pipeline(
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed under the root tsconfig (DOM's stream type), not under client/'s
        Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>),
        fs.createWriteStream(file),
      );
      return { written: file, bytes: fs.statSync(file).size };
    }
    default:
      return undefined;
  }
}
