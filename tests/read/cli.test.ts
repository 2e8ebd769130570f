import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestEnvironment } from "@/tests/support/harness";
import { fetchInProcess } from "@/tests/support/http";
import { createTestUser } from "@/tests/support/users";
import { changeWith, projectWith } from "@/server/changes/test-fixtures";

useTestEnvironment();

/** The app's route handlers behind a real HTTP port, so the CLI runs as a separate process. */
let server: http.Server;
let url: string;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "read-cli-"));

beforeAll(async () => {
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers(
      Object.entries(req.headers).flatMap(([name, value]) =>
        typeof value === "string" ? [[name, value] as [string, string]] : [],
      ),
    );
    const answer = await fetchInProcess(`${url}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (answer.body) Readable.fromWeb(answer.body as never).pipe(res);
    else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

function cli(token: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.resolve("client/cli/bin.mjs"), ...args],
      {
        cwd: process.cwd(),
        env: { ...process.env, SVC_URL: url, SVC_TOKEN: token, SVC_CONFIG: path.join(work, "none.json") },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe("the reading commands of the CLI", () => {
  it("change diff (JSON and --patch), search, tag create/list/delete, archive", { timeout: 240_000 }, async () => {
    const alice = await createTestUser();
    const project = await projectWith(alice.token, { "a.txt": "alpha\n" });
    const { change } = await changeWith(alice.token, project, { "a.txt": "ALPHA\n" });

    const diff = await cli(alice.token, "change", "diff", change.id);
    expect(diff.code, diff.stderr).toBe(0);
    expect(JSON.parse(diff.stdout)).toMatchObject({
      changeId: change.id,
      totals: { files: 1, additions: 1, deletions: 1 },
    });
    const patch = await cli(alice.token, "change", "diff", change.id, "--patch");
    expect(patch.stdout).toContain("diff --git a/a.txt b/a.txt");
    expect(patch.stdout).toContain("+ALPHA");

    const search = await cli(alice.token, "search", project.path, "ALPHA", "--case");
    expect(JSON.parse(search.stdout).matches).toEqual([]);
    const insensitive = await cli(alice.token, "search", project.path, "ALPHA");
    expect(JSON.parse(insensitive.stdout).matches).toEqual([{ path: "a.txt", line: 1, text: "alpha" }]);

    const created = await cli(alice.token, "tag", "create", project.path, "v1", "-m", "first");
    expect(JSON.parse(created.stdout).tag).toMatchObject({ name: "v1", annotated: true, commit: project.commit });
    expect(JSON.parse((await cli(alice.token, "tag", "list", project.path)).stdout).tags).toMatchObject([
      { name: "v1" },
    ]);
    const again = await cli(alice.token, "tag", "create", project.path, "v1");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("TAG_EXISTS");
    expect(JSON.parse((await cli(alice.token, "tag", "delete", project.path, "v1")).stdout)).toEqual({
      deleted: true,
      name: "v1",
    });

    const file = path.join(work, "out.tar.gz");
    const archive = await cli(alice.token, "archive", project.path, "-o", file);
    expect(archive.code, archive.stderr).toBe(0);
    expect(JSON.parse(archive.stdout)).toEqual({ written: file, bytes: fs.statSync(file).size });
    expect(fs.readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });
});
