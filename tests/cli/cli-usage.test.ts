import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { useGitServer } from "@/tests/git/support";
import { freePort } from "@/tests/support/ports";

/**
 * The CLI's exits (usage 2, refusal 1), its words when the server cannot be reached, and the
 * credential helper `clone` leaves behind, with the real git client against the in-process server.
 */
useTestEnvironment();
const gitServer = useGitServer();

const bin = path.resolve("client/cli/bin.mjs");

/** The CLI as a child (asynchronous: the in-process server must answer while it runs), with git's isolated HOME. */
function cli(
  args: string[],
  options: { cwd?: string; config?: string; env?: Record<string, string> } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env = {
      ...process.env,
      SVC_URL: "",
      SVC_TOKEN: "",
      HOME: gitServer.git.home,
      SVC_CONFIG: options.config ?? path.join(gitServer.git.home, "cli.json"),
      GIT_TERMINAL_PROMPT: "0",
      GIT_CONFIG_NOSYSTEM: "1",
      ...options.env,
    };
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd ?? gitServer.git.home, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

describe("the CLI's command line", () => {
  it("--help prints the usage and exits 0; an unknown option, command or a missing argument prints it with exit 2, no stack", async () => {
    const help = await cli(["--help"]);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("svc-forge <command>");
    for (const args of [
      ["--frobnicate"],
      ["frobnicate"],
      ["projects", "explode"],
      [],
      ["change", "show"],
      ["clone", "not-a-project"],
      ["whoami", "--url"],
    ]) {
      const result = await cli(args);
      expect(result.status, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain("svc-forge <command>");
      expect(result.stderr, args.join(" ")).not.toMatch(/\n\s+at /);
    }
    expect((await cli(["--frobnicate"])).stderr).toMatch(/^svc-forge: Unknown option '--frobnicate'/);
  }, 120_000);

  it("a server that refuses exits 1 with its status; an unreachable one names the address and the cause", async () => {
    const refused = await cli(["login", "--url", gitServer.server.baseUrl, "--token", "svc_user_nope"]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^svc-forge: 401 /);
    // A port nobody listens on (fetch refuses port 1 itself as a "bad port").
    const closed = await freePort();
    const unreachable = await cli(["login", "--url", `http://127.0.0.1:${closed}`, "--token", "svc_user_nope"]);
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr.trim()).toBe(
      `svc-forge: cannot reach http://127.0.0.1:${closed}: connect ECONNREFUSED 127.0.0.1:${closed}`,
    );
  }, 60_000);
});

describe("where svc-forge login keeps the token", () => {
  it("$XDG_CONFIG_HOME/svc-forge/cli.json, else ~/.config/svc-forge/cli.json (a relative XDG_CONFIG_HOME is ignored), SVC_CONFIG first; always mode 0600", async () => {
    const user = await createTestUser();
    const home = fs.mkdtempSync(path.join(gitServer.git.home, "home-"));
    const login = (env: Record<string, string>) =>
      cli(["login", "--url", gitServer.server.baseUrl, "--token", user.token], {
        env: { HOME: home, SVC_CONFIG: "", XDG_CONFIG_HOME: "", ...env },
      });
    const saved = (file: string) => ({
      mode: fs.statSync(file).mode & 0o777,
      config: JSON.parse(fs.readFileSync(file, "utf8")),
    });
    const expected = { mode: 0o600, config: { url: gitServer.server.baseUrl, token: user.token } };

    const xdg = path.join(home, "xdg");
    expect((await login({ XDG_CONFIG_HOME: xdg })).status).toBe(0);
    expect(saved(path.join(xdg, "svc-forge/cli.json"))).toEqual(expected);
    expect(fs.statSync(path.join(xdg, "svc-forge")).mode & 0o777).toBe(0o700);
    // The saved login is read from there: whoami needs the token.
    expect(
      JSON.parse((await cli(["whoami"], { env: { HOME: home, SVC_CONFIG: "", XDG_CONFIG_HOME: xdg } })).stdout)
        .username,
    ).toBe(user.username);

    expect((await login({ XDG_CONFIG_HOME: "relative/xdg" })).status).toBe(0);
    expect(saved(path.join(home, ".config/svc-forge/cli.json"))).toEqual(expected);
    expect(fs.existsSync(path.join(gitServer.git.home, "relative"))).toBe(false);

    // A file made readable by others (by hand, or by an older version) is narrowed again.
    const chosen = path.join(home, "chosen.json");
    fs.writeFileSync(chosen, "{}\n", { mode: 0o644 });
    expect((await login({ XDG_CONFIG_HOME: xdg, SVC_CONFIG: chosen })).status).toBe(0);
    expect(saved(chosen)).toEqual(expected);
  }, 120_000);
});

describe("svc-forge clone and its credential helper", () => {
  it("leaves a clone of a private project that fetches and pushes with the saved token, which is not in .git/config", async () => {
    const owner = await createTestUser();
    const created = await call("POST", "/api/projects", {
      token: owner.token,
      body: { name: "helped", visibility: "private", files: { "README.md": "hi\n" } },
    });
    expect(created.status).toBe(201);
    expect((await cli(["login", "--url", gitServer.server.baseUrl, "--token", owner.token])).status).toBe(0);

    const cloned = await cli(["clone", `@${owner.username}/helped`, "helped"]);
    expect(cloned.status, cloned.stderr).toBe(0);
    const dir = gitServer.git.dir("helped");
    expect(fs.readFileSync(path.join(dir, ".git/config"), "utf8")).not.toContain(owner.token);

    // A private project: a fetch needs the credentials as much as a push does.
    const env = { GIT_TERMINAL_PROMPT: "0" };
    await gitServer.git.ok(["fetch", "origin"], { cwd: dir, env });

    // And pushes a branch of its own.
    fs.writeFileSync(path.join(dir, "local.txt"), "from the clone\n");
    await gitServer.git.ok(["add", "local.txt"], { cwd: dir, env });
    await gitServer.git.ok(["commit", "-m", "local"], { cwd: dir, env });
    await gitServer.git.ok(["push", "origin", "HEAD:refs/heads/from-clone"], { cwd: dir, env });
    const files = await call("GET", `/api/projects/@${owner.username}/helped/files?ref=from-clone`, {
      token: owner.token,
    });
    expect(files.body.files).toEqual(["README.md", "local.txt"]);

    // The helper answers for the saved server only.
    const other = await gitServer.git.run(["credential", "fill"], {
      cwd: dir,
      env,
      input: "protocol=https\nhost=evil.example\n\n",
    });
    expect(other.stdout).not.toContain(owner.token);
  }, 180_000);
});
