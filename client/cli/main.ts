#!/usr/bin/env node
// `npm run cli -- <command>` (or the `svc-forge` bin): the daily work of a person or an agent,
// through the typed SDK. Every command prints JSON on stdout; a usage error prints the usage on
// stderr with exit 2, a refusal or failure its reason on stderr with exit 1.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { parseArgs } from "node:util";
import { createSvcClient, projectParams, watchChange } from "../index.js";
import { loadConfig, saveConfig, type CliConfig } from "./config.js";
import { answerGitCredential, credentialHelperCommand } from "./git-credential.js";
import { watchImport } from "./import-watch.js";
import { changeLogs } from "./logs.js";
import { PRINTED, READ_USAGE, runReadCommand } from "./read.js";

const USAGE = `svc-forge <command>

  login --url URL --token TOKEN          check the token and save both (SVC_URL / SVC_TOKEN override)
  whoami
  projects list
  projects create NAME [--public] [--org ORG]
  clone @ns/slug [DIR]                   git clone with the saved token; fetch and push then use
                                         the credential helper below
  auth git-credential get                git's credential helper: the saved token for the saved server
  workspace create @ns/slug [--name NAME]
  workspace commit NAME --project @ns/slug -m MESSAGE FILE...
  change open @ns/slug --workspace NAME
  change list @ns/slug [--status STATUS]
  change show ID                         ID: a change's id, or its number (12 or !12) with --project @ns/slug
  change review ID --verdict approve|request_changes|comment [--comment TEXT]
  change merge ID [--strategy merge|squash] [--force]
  change watch ID                         each transition on stderr until merged (exit 0), rejected or needs_changes (exit 1)
  change logs ID [--follow]               each evaluation run's log; --follow streams runs still going to their end
  change queue ID [--strategy merge|squash]
                                         merge when ready: the project's merge queue lands it (its position)
  change dequeue ID                      take it out of the queue
  queue list @ns/slug                    the project's queue in landing order
  issue list @ns/slug [--status open|closed]
  issue open @ns/slug --title TITLE [--body BODY]
  import start @ns/slug --url URL [--branch BRANCH] [--public]
                                         import a repository from the hosting provider into a new project
  import watch @ns/slug [--interval SECONDS]
                                         progress lines on stderr until the import ends; exit 1 unless it completed

${READ_USAGE}

Exit status: 0 done, 1 refused or failed, 2 usage error. --help prints this.`;

/** A command line this CLI cannot run: the usage, exit 2. */
class UsageError extends Error {}

/** The service refused, or the work failed: exit 1. */
class CliError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

type Args = { positionals: string[]; values: Record<string, string | boolean | undefined> };

/** An SDK answer: its data, or a CliError carrying the service's {error, code}. */
function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || result.data === undefined) {
    const body = (result.error ?? {}) as { error?: string; code?: string };
    throw new CliError(`${result.response.status} ${body.error ?? result.response.statusText}`, body.code);
  }
  return result.data;
}

function need(value: string | boolean | undefined, what: string): string {
  if (typeof value !== "string" || value === "") throw new UsageError(`missing ${what}`);
  return value;
}

function projectArg(value: string | boolean | undefined): { namespace: string; slug: string } {
  try {
    return projectParams(need(value, "@namespace/slug"));
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError((error as Error).message);
  }
}

async function run({ positionals: [command, sub, ...rest], values }: Args, config: CliConfig): Promise<unknown> {
  const svc = createSvcClient({ baseUrl: config.url, token: config.token });
  const project = () => ({ params: { path: projectArg(rest[0]) } });
  // A change by id, or by its number in --project (`12`, `!12` or `#12`).
  const changeById = async (value: string | undefined) => {
    const arg = need(value, "ID");
    const number = /^[!#]?(\d+)$/.exec(arg)?.[1];
    if (number === undefined) return unwrap(await svc.GET("/api/changes/{id}", { params: { path: { id: arg } } }));
    const path = {
      ...projectArg(need(values.project, "--project @ns/slug (a change by number)")),
      number: Number(number),
    };
    return unwrap(await svc.GET("/api/projects/{namespace}/{slug}/changes/{number}", { params: { path } }));
  };
  const changeId = async (value: string | undefined) =>
    /^[!#]?\d+$/.test(value ?? "") ? (await changeById(value)).change.id : need(value, "ID");
  const oneWord = ["login", "whoami", "clone", "compare", "search", "blame", "archive"].includes(command ?? "");
  const key = `${command ?? ""} ${oneWord ? "" : (sub ?? "")}`.trim();
  const read = await runReadCommand(
    key,
    oneWord ? [sub, ...rest].filter((value): value is string => value !== undefined) : rest,
    values,
    svc,
    unwrap,
    need,
  );
  if (read !== undefined) return read;
  switch (key) {
    case "login": {
      const login = { url: need(values.url, "--url"), token: need(values.token, "--token") };
      const me = unwrap(await createSvcClient({ baseUrl: login.url, token: login.token }).GET("/api/users/me"));
      saveConfig(login);
      return { loggedIn: true, url: login.url, user: me };
    }
    case "whoami":
      return unwrap(await svc.GET("/api/users/me"));
    case "projects list":
      return unwrap(await svc.GET("/api/projects"));
    case "projects create":
      return unwrap(
        await svc.POST("/api/projects", {
          body: {
            name: need(rest[0], "NAME"),
            visibility: values.public ? "public" : "private",
            ...(typeof values.org === "string" ? { org: values.org } : {}),
          },
        }),
      );
    case "clone": {
      const { namespace, slug } = projectArg(sub);
      const found = unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}", { params: { path: { namespace, slug } } }),
      );
      const dir = rest[0] ?? slug;
      // The token goes in this one command's configuration, never into the clone's .git/config.
      const auth = config.token ? ["-c", `http.extraHeader=Authorization: Bearer ${config.token}`] : [];
      const git = spawnSync("git", [...auth, "clone", "--quiet", found.remote, dir], {
        stdio: ["ignore", "ignore", "inherit"],
      });
      if (git.status !== 0) throw new CliError(`git clone failed (exit ${git.status})`);
      // Later fetches and pushes ask this CLI for the saved token (for this server only).
      const helper = spawnSync(
        "git",
        ["-C", dir, "config", `credential.${new URL(config.url).origin}.helper`, credentialHelperCommand()],
        { stdio: ["ignore", "ignore", "inherit"] },
      );
      if (helper.status !== 0) throw new CliError(`git config failed (exit ${helper.status})`);
      return { cloned: found.path, directory: dir };
    }
    case "auth git-credential":
      process.stdout.write(answerGitCredential(rest[0], config));
      return undefined;
    case "workspace create":
      return unwrap(
        await svc.POST("/api/workspaces/{namespace}/{slug}/workspaces", {
          params: { path: projectArg(rest[0]) },
          body: typeof values.name === "string" ? { name: values.name } : {},
        }),
      );
    case "workspace commit": {
      const name = need(rest[0], "NAME");
      const files = rest.slice(1);
      if (files.length === 0) throw new CliError("name at least one FILE to commit");
      const found = unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}", { params: { path: projectArg(values.project) } }),
      );
      return unwrap(
        await svc.POST("/api/workspaces/{name}/commit", {
          params: { path: { name } },
          body: {
            projectId: found.id,
            message: need(values.message, "-m MESSAGE"),
            files: Object.fromEntries(files.map((file) => [file, fs.readFileSync(file, "utf8")])),
          },
        }),
      );
    }
    case "change open":
      return unwrap(
        await svc.POST("/api/projects/{namespace}/{slug}/changes", {
          ...project(),
          body: { workspace: need(values.workspace, "--workspace") },
        }),
      );
    case "change list":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/changes", {
          params: {
            path: projectArg(rest[0]),
            query: typeof values.status === "string" ? { status: values.status as never } : {},
          },
        }),
      );
    case "change show":
      return changeById(rest[0]);
    case "change review":
      return unwrap(
        await svc.POST("/api/changes/{id}/reviews", {
          params: { path: { id: await changeId(rest[0]) } },
          body: {
            verdict: need(values.verdict, "--verdict") as "approve",
            ...(typeof values.comment === "string" ? { comment: values.comment } : {}),
          },
        }),
      );
    case "change merge":
      return unwrap(
        await svc.POST("/api/changes/{id}/merge", {
          params: {
            path: { id: await changeId(rest[0]) },
            query: {
              strategy: (values.strategy as "merge" | "squash" | undefined) ?? "merge",
              force: values.force ? "true" : "false",
            },
          },
        }),
      );
    case "change queue":
      return unwrap(
        await svc.POST("/api/changes/{id}/queue", {
          params: { path: { id: await changeId(rest[0]) } },
          body: { strategy: (values.strategy as "merge" | "squash" | undefined) ?? "merge" },
        }),
      );
    case "change dequeue":
      return unwrap(await svc.DELETE("/api/changes/{id}/queue", { params: { path: { id: await changeId(rest[0]) } } }));
    case "queue list":
      return unwrap(await svc.GET("/api/projects/{namespace}/{slug}/queue", project()));
    case "change watch": {
      const final = await watchChange(await changeId(rest[0]), {
        baseUrl: config.url,
        token: config.token,
        until: (state) => state.change.status === "needs_changes",
        onEvent: (event) => console.error(`${event.event} ${event.data.change.status}`),
      });
      if (final.data.change.status !== "merged") throw new CliError(`change ${final.data.change.status}`);
      return final.data;
    }
    case "change logs": {
      await changeLogs(await changeId(rest[0]), {
        baseUrl: config.url,
        token: config.token,
        follow: values.follow === true,
        write: (text) => process.stdout.write(text),
      });
      return PRINTED;
    }
    case "issue list":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/issues", {
          params: {
            path: projectArg(rest[0]),
            query: typeof values.status === "string" ? { status: values.status as "open" } : {},
          },
        }),
      );
    case "issue open":
      return unwrap(
        await svc.POST("/api/projects/{namespace}/{slug}/issues", {
          ...project(),
          body: {
            title: need(values.title, "--title"),
            ...(typeof values.body === "string" ? { body: values.body } : {}),
          },
        }),
      );
    case "import start":
      return unwrap(
        await svc.POST("/api/projects/{namespace}/{slug}/import", {
          ...project(),
          body: {
            url: need(values.url, "--url"),
            visibility: values.public ? "public" : "private",
            ...(typeof values.branch === "string" ? { branch: values.branch } : {}),
          },
        }),
      );
    case "import watch": {
      const seconds = Number(values.interval ?? 2);
      if (!(seconds > 0)) throw new CliError("--interval takes a positive number of seconds");
      const final = await watchImport(svc, projectArg(rest[0]), seconds * 1000, (line) => console.error(line));
      if (final.status !== "completed")
        throw new CliError(
          `import ${final.status}${final.error ? `: ${final.error}` : ""}`,
          final.failureCategory ?? undefined,
        );
      return final;
    }
    default:
      throw new UsageError(
        command === undefined ? "no command given" : `unknown command: ${[command, sub].filter(Boolean).join(" ")}`,
      );
  }
}

const OPTIONS = {
  help: { type: "boolean", short: "h" },
  url: { type: "string" },
  token: { type: "string" },
  public: { type: "boolean" },
  org: { type: "string" },
  name: { type: "string" },
  project: { type: "string" },
  message: { type: "string", short: "m" },
  workspace: { type: "string" },
  status: { type: "string" },
  verdict: { type: "string" },
  comment: { type: "string" },
  strategy: { type: "string" },
  force: { type: "boolean" },
  title: { type: "string" },
  body: { type: "string" },
  interval: { type: "string" },
  follow: { type: "boolean" },
  branch: { type: "string" },
  patch: { type: "boolean" },
  limit: { type: "string" },
  offset: { type: "string" },
  ref: { type: "string" },
  path: { type: "string" },
  regex: { type: "boolean" },
  case: { type: "boolean" },
  target: { type: "string" },
  format: { type: "string" },
  output: { type: "string", short: "o" },
} as const;

/** The command line, or a UsageError for an unknown option, a missing option value or a stray one. */
function parseCommandLine(argv: string[]): Args {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** undici's "fetch failed" names neither the address nor the reason: its cause does (ECONNREFUSED 127.0.0.1:1). */
function unreachable(error: unknown, url: string): string | undefined {
  if (!(error instanceof TypeError) || !error.cause) return undefined;
  const cause = error.cause as { code?: string; message?: string; errors?: Array<{ message?: string }> };
  const reasons = cause.errors?.length ? cause.errors.map((inner) => inner.message) : [cause.message ?? cause.code];
  return `cannot reach ${url}: ${reasons.filter(Boolean).join("; ")}`;
}

export async function main(argv: string[]): Promise<number> {
  const config = loadConfig();
  let target = config.url;
  try {
    const args = parseCommandLine(argv);
    if (typeof args.values.url === "string") target = args.values.url;
    if (args.values.help) {
      console.log(USAGE);
      return 0;
    }
    const result = await run(args, config);
    if (result !== undefined && result !== PRINTED) console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`svc-forge: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    const code = error instanceof CliError && error.code ? ` (${error.code})` : "";
    const message = unreachable(error, target) ?? (error instanceof Error ? error.message : String(error));
    console.error(`svc-forge: ${message}${code}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
