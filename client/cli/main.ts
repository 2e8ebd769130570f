// `npm run cli -- <command>` (or the `svc-forge` bin): the daily work of a person or an agent,
// through the typed SDK. Every command prints JSON on stdout; errors go to stderr with exit 1.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { parseArgs } from "node:util";
import { createSvcClient, projectParams, watchChange } from "../index";
import { loadConfig, saveConfig, type CliConfig } from "./config";
import { watchImport } from "./import-watch";

const USAGE = `svc-forge <command>

  login --url URL --token TOKEN          check the token and save both (SVC_URL / SVC_TOKEN override)
  whoami
  projects list
  projects create NAME [--public] [--org ORG]
  clone @ns/slug [DIR]                   git clone with the saved token
  workspace create @ns/slug [--name NAME]
  workspace commit NAME --project @ns/slug -m MESSAGE FILE...
  change open @ns/slug --workspace NAME
  change list @ns/slug [--status STATUS]
  change show ID
  change review ID --verdict approve|request_changes|comment [--comment TEXT]
  change merge ID [--strategy merge|squash] [--force]
  change watch ID                         each transition on stderr until merged (exit 0), rejected or needs_changes (exit 1)
  issue list @ns/slug [--status open|closed]
  issue open @ns/slug --title TITLE [--body BODY]
  import start @ns/slug --url URL [--branch BRANCH] [--public]
                                         import a repository from the hosting provider into a new project
  import watch @ns/slug [--interval SECONDS]
                                         progress lines on stderr until the import ends; exit 1 unless it completed`;

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
  if (typeof value !== "string" || value === "") throw new CliError(`missing ${what}\n\n${USAGE}`);
  return value;
}

async function run({ positionals: [command, sub, ...rest], values }: Args, config: CliConfig): Promise<unknown> {
  const svc = createSvcClient({ baseUrl: config.url, token: config.token });
  const project = () => ({ params: { path: projectParams(need(rest[0], "@namespace/slug")) } });
  switch (`${command ?? ""} ${["login", "whoami", "clone"].includes(command ?? "") ? "" : (sub ?? "")}`.trim()) {
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
          body: { name: need(rest[0], "NAME"), visibility: values.public ? "public" : "private", ...(typeof values.org === "string" ? { org: values.org } : {}) },
        }),
      );
    case "clone": {
      const { namespace, slug } = projectParams(need(sub, "@namespace/slug"));
      const found = unwrap(await svc.GET("/api/projects/{namespace}/{slug}", { params: { path: { namespace, slug } } }));
      const dir = rest[0] ?? slug;
      // The token goes in this one command's configuration, never into the clone's .git/config.
      const auth = config.token ? ["-c", `http.extraHeader=Authorization: Bearer ${config.token}`] : [];
      const git = spawnSync("git", [...auth, "clone", "--quiet", found.remote, dir], { stdio: ["ignore", "ignore", "inherit"] });
      if (git.status !== 0) throw new CliError(`git clone failed (exit ${git.status})`);
      return { cloned: found.path, directory: dir };
    }
    case "workspace create":
      return unwrap(
        await svc.POST("/api/workspaces/{namespace}/{slug}/workspaces", {
          params: { path: projectParams(need(rest[0], "@namespace/slug")) },
          body: typeof values.name === "string" ? { name: values.name } : {},
        }),
      );
    case "workspace commit": {
      const name = need(rest[0], "NAME");
      const files = rest.slice(1);
      if (files.length === 0) throw new CliError("name at least one FILE to commit");
      const found = unwrap(await svc.GET("/api/projects/{namespace}/{slug}", { params: { path: projectParams(need(values.project, "--project")) } }));
      return unwrap(
        await svc.POST("/api/workspaces/{name}/commit", {
          params: { path: { name } },
          body: { projectId: found.id, message: need(values.message, "-m MESSAGE"), files: Object.fromEntries(files.map((file) => [file, fs.readFileSync(file, "utf8")])) },
        }),
      );
    }
    case "change open":
      return unwrap(await svc.POST("/api/projects/{namespace}/{slug}/changes", { ...project(), body: { workspace: need(values.workspace, "--workspace") } }));
    case "change list":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/changes", {
          params: { path: projectParams(need(rest[0], "@namespace/slug")), query: typeof values.status === "string" ? { status: values.status as never } : {} },
        }),
      );
    case "change show":
      return unwrap(await svc.GET("/api/changes/{id}", { params: { path: { id: need(rest[0], "ID") } } }));
    case "change review":
      return unwrap(
        await svc.POST("/api/changes/{id}/reviews", {
          params: { path: { id: need(rest[0], "ID") } },
          body: { verdict: need(values.verdict, "--verdict") as "approve", ...(typeof values.comment === "string" ? { comment: values.comment } : {}) },
        }),
      );
    case "change merge":
      return unwrap(
        await svc.POST("/api/changes/{id}/merge", {
          params: { path: { id: need(rest[0], "ID") }, query: { strategy: (values.strategy as "merge" | "squash" | undefined) ?? "merge", force: values.force ? "true" : "false" } },
        }),
      );
    case "change watch": {
      const final = await watchChange(need(rest[0], "ID"), {
        baseUrl: config.url,
        token: config.token,
        until: (state) => state.change.status === "needs_changes",
        onEvent: (event) => console.error(`${event.event} ${event.data.change.status}`),
      });
      if (final.data.change.status !== "merged") throw new CliError(`change ${final.data.change.status}`);
      return final.data;
    }
    case "issue list":
      return unwrap(
        await svc.GET("/api/projects/{namespace}/{slug}/issues", {
          params: { path: projectParams(need(rest[0], "@namespace/slug")), query: typeof values.status === "string" ? { status: values.status as "open" } : {} },
        }),
      );
    case "issue open":
      return unwrap(
        await svc.POST("/api/projects/{namespace}/{slug}/issues", {
          ...project(),
          body: { title: need(values.title, "--title"), ...(typeof values.body === "string" ? { body: values.body } : {}) },
        }),
      );
    case "import start":
      return unwrap(
        await svc.POST("/api/projects/{namespace}/{slug}/import", {
          ...project(),
          body: { url: need(values.url, "--url"), visibility: values.public ? "public" : "private", ...(typeof values.branch === "string" ? { branch: values.branch } : {}) },
        }),
      );
    case "import watch": {
      const seconds = Number(values.interval ?? 2);
      if (!(seconds > 0)) throw new CliError("--interval takes a positive number of seconds");
      const final = await watchImport(svc, projectParams(need(rest[0], "@namespace/slug")), seconds * 1000, (line) => console.error(line));
      if (final.status !== "completed") throw new CliError(`import ${final.status}${final.error ? `: ${final.error}` : ""}`, final.failureCategory ?? undefined);
      return final;
    }
    default:
      throw new CliError(USAGE);
  }
}

export async function main(argv: string[]): Promise<number> {
  const args = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
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
      branch: { type: "string" },
    },
  });
  try {
    console.log(JSON.stringify(await run(args, loadConfig()), null, 2));
    return 0;
  } catch (error) {
    const code = error instanceof CliError && error.code ? ` (${error.code})` : "";
    console.error(`svc-forge: ${error instanceof Error ? error.message : String(error)}${code}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
