// scripts/build.mjs: `npm start` and `npm ci` (prepare) build only when no build of the current
// sources exists. `next build` is replaced by a stand-in `npx` on PATH that records its calls.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const script = path.resolve(import.meta.dirname, "../../scripts/build.mjs");

describe("the build stamp", () => {
  let root: string;
  let calls: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  const build = (args: string[], env: Record<string, string> = {}) => {
    const before = fs.existsSync(calls) ? fs.readFileSync(calls, "utf8").split("\n").filter(Boolean).length : 0;
    const run = spawnSync("node", ["scripts/build.mjs", ...args], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, PATH: `${path.join(root, "bin")}:${process.env.PATH}`, SVC_SKIP_BUILD: "", ...env },
    });
    expect(run.status, run.stderr).toBe(0);
    const after = fs.existsSync(calls) ? fs.readFileSync(calls, "utf8").split("\n").filter(Boolean).length : 0;
    return { built: after > before, output: run.stdout };
  };

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-build-stamp-"));
    calls = path.join(root, "npx-calls");
    for (const name of ["build.mjs", "dedupe-server-chunks.mjs", "one-byte-chunks.mjs", "write-by-rename.mjs"])
      write(`scripts/${name}`, fs.readFileSync(path.join(path.dirname(script), name), "utf8"));
    fs.symlinkSync(path.resolve("node_modules"), path.join(root, "node_modules"));
    write("package.json", "{}\n");
    write("app/page.tsx", "export default () => null;\n");
    write("tests/a.test.ts", "// not part of the build\n");
    write("README.md", "# not part of the build\n");
    // The stand-in for `npx next build`: records the call, leaves a build, and writes a source as Next does.
    write(
      "bin/npx",
      `#!/bin/sh\necho "$*" >> "${calls}"\nmkdir -p .next && echo id > .next/BUILD_ID && echo "// generated" > next-env.d.ts\n`,
    );
    fs.chmodSync(path.join(root, "bin/npx"), 0o755);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it("builds when no build exists, then not again until a source of the build changes", () => {
    expect(build(["--if-stale"]).built).toBe(true);
    expect(fs.readFileSync(calls, "utf8").trim()).toBe("next build");
    const again = build(["--if-stale"]);
    expect(again.built).toBe(false);
    expect(again.output).toMatch(/not rebuilding/);
    write("tests/a.test.ts", "// changed, still not part of the build\n");
    write("README.md", "# changed\n");
    expect(build(["--if-stale"]).built).toBe(false);
    write("app/page.tsx", "export default () => 'changed';\n");
    expect(build(["--if-stale"]).built).toBe(true);
    expect(build(["--if-stale"]).built).toBe(false);
    write("app/new.ts", "export {};\n");
    expect(build(["--if-stale"]).built).toBe(true);
  });

  it("rebuilds when the build is gone, always on `npm run build`, and never with SVC_SKIP_BUILD=1", () => {
    build(["--if-stale"]);
    fs.rmSync(path.join(root, ".next/BUILD_ID"));
    expect(build(["--if-stale"]).built).toBe(true);
    expect(build([]).built).toBe(true);
    fs.rmSync(path.join(root, ".next"), { recursive: true });
    expect(build(["--if-stale"], { SVC_SKIP_BUILD: "1" }).built).toBe(false);
  });
});
