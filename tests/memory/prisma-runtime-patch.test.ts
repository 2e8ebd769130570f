import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

// scripts/patch-prisma-runtime.mjs (postinstall): Prisma's parameterization graph kept in Maps, and
// the query compiler's WebAssembly read from a file instead of a module's base64 literal.
const script = path.resolve("scripts/patch-prisma-runtime.mjs");
const runtime = path.resolve("node_modules/@prisma/client/runtime");
const read = (file: string) => fs.readFileSync(path.join(runtime, file), "utf8");

describe("the Prisma runtime patch", () => {
  it("is applied to the installed client: graph edges are Maps, read with get()", () => {
    for (const file of ["client.js", "client.mjs"]) {
      const text = read(file);
      expect(text.split("n.edges.get(i)").length - 1).toBe(2);
      expect(text).toContain("o.set(a,S)}r.push({edges:o})");
      expect(text).not.toContain("o[a]=S}r.push");
    }
  });

  it("changes nothing when run again", () => {
    const before = read("client.js");
    execFileSync(process.execPath, [script], { stdio: "pipe" });
    expect(read("client.js")).toBe(before);
  });

  it("fails the install, naming the file, when Prisma's code is not what it patches", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prisma-runtime-"));
    try {
      for (const file of ["client.js", "client.mjs"]) fs.writeFileSync(path.join(dir, file), "var graph = {};\n");
      const run = spawnSync(process.execPath, [script, dir], { encoding: "utf8" });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain(`${path.join(dir, "client.js")}, found 0; Prisma changed`);
      expect(fs.readFileSync(path.join(dir, "client.js"), "utf8")).toBe("var graph = {};\n");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves no base64 of the query compiler in a module's source: it is read from a file when decoded", async () => {
    const file = "query_compiler_small_bg.postgresql.wasm-base64.mjs";
    expect(read(file).length).toBeLessThan(1_000);
    const { wasm } = await import(pathToFileURL(path.join(runtime, file)).href);
    expect(typeof wasm).toBe("object");
    expect(WebAssembly.validate(Buffer.from(wasm, "base64"))).toBe(true);
  });

  it("moves a base64 literal to its file, and refuses a module of another shape", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "prisma-runtime-"));
    try {
      for (const file of ["client.js", "client.mjs"]) fs.copyFileSync(path.join(runtime, file), path.join(dir, file));
      const module = path.join(dir, "query_compiler_small_bg.postgresql.wasm-base64.mjs");
      fs.writeFileSync(module, 'const wasm = "AGFzbQEAAAA=";\nexport { wasm }\n'); // an empty module: \0asm, version 1
      execFileSync(process.execPath, [script, dir], { stdio: "pipe" });
      const { wasm } = await import(pathToFileURL(module).href);
      expect([...Buffer.from(wasm, "base64")]).toEqual([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);

      fs.writeFileSync(module, "export const wasm = await fetchIt();\n");
      const run = spawnSync(process.execPath, [script, dir], { encoding: "utf8" });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain(`${module} is not a base64 literal export; Prisma changed`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
