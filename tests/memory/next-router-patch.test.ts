import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";

// scripts/patch-next-router.mjs (postinstall): Next.js's router's cache of path lookups bounded at
// 1 MB by its own estimate instead of 8 MB.
const script = path.resolve("scripts/patch-next-router.mjs");
const dist = path.resolve("node_modules/next/dist");
const FILES = ["server/lib/router-utils/filesystem.js", "esm/server/lib/router-utils/filesystem.js"];
const PATCHED = "const FS_LRU_MAX_SIZE = 1 * 1024 * 1024;";

describe("the Next.js router patch", () => {
  it("is applied to the file the production server loads, and to its ES module twin", () => {
    const loaded = createRequire(path.resolve("front.mjs")).resolve("next/dist/server/lib/router-utils/filesystem.js");
    expect(loaded).toBe(path.join(dist, FILES[0]));
    for (const file of FILES) {
      const text = fs.readFileSync(path.join(dist, file), "utf8");
      expect(text).toContain(PATCHED);
      expect(text).not.toContain("FS_LRU_MAX_SIZE = 8 * 1024 * 1024");
    }
  });

  it("changes nothing when run again", () => {
    const before = fs.readFileSync(path.join(dist, FILES[0]), "utf8");
    execFileSync(process.execPath, [script], { stdio: "pipe" });
    expect(fs.readFileSync(path.join(dist, FILES[0]), "utf8")).toBe(before);
  });

  it("patches a fresh copy, and fails the install naming the file when Next.js's line is not there", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "next-router-"));
    try {
      for (const file of FILES) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), "const FS_LRU_MAX_SIZE = 8 * 1024 * 1024;\n");
      }
      execFileSync(process.execPath, [script, dir], { stdio: "pipe" });
      for (const file of FILES) expect(fs.readFileSync(path.join(dir, file), "utf8")).toContain(PATCHED);

      const changed = path.join(dir, FILES[1]);
      fs.writeFileSync(changed, "const FS_LRU_MAX_SIZE = 16 * 1024 * 1024;\n");
      const run = spawnSync(process.execPath, [script, dir], { encoding: "utf8" });
      expect(run.status).not.toBe(0);
      expect(run.stderr).toContain(`${changed}, found 0; Next.js changed`);
      expect(fs.readFileSync(changed, "utf8")).toBe("const FS_LRU_MAX_SIZE = 16 * 1024 * 1024;\n");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
