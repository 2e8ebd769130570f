// scripts/dedupe-server-chunks.mjs and scripts/one-byte-chunks.mjs, run by scripts/build.mjs after
// `next build`: one file per server chunk content, and chunk text V8 can keep at one byte a character;
// scripts/patch-one-byte-dependencies.mjs (postinstall) does the same for the largest files the
// server loads from its dependencies.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { dedupeServerChunks, duplicateServerChunks } from "@/scripts/dedupe-server-chunks.mjs";
import { oneByteServerChunks, oneByteSource, twoByteServerChunks } from "@/scripts/one-byte-chunks.mjs";
import { ONE_BYTE_DEPENDENCY_FILES, patchOneByteDependencies } from "@/scripts/patch-one-byte-dependencies.mjs";

const TWO_BYTE = /[^\u0000-\u00ff]/;
// The script's value: what `module.exports` holds once it has run.
const run = (source: string) => {
  const module = { exports: undefined as unknown };
  (vm.runInThisContext(`(function (module) {${source}\n})`) as (module: object) => void)(module);
  return module.exports;
};

describe("chunk text in one byte a character", () => {
  it("escapes strings, untagged templates, regular expressions and comments to the same values", () => {
    const source = [
      "/*! © 2026 “quoted” */",
      'const a = "…中文\\u00e9", b = \'it\\\'s “x”\', c = "\\…";',
      "const t = `${a} — \\`tick\\` $ {x} \\\\ 🎉`;",
      "const r = /[一-龥]+|\\…|😀/, u = /😀{2}/u;",
      'const line = "a\u2028b";',
      "module.exports = { a, b, c, t, line, r1: r.exec('x中文y')[0], r2: r.test('…'), r3: u.test('😀😀'), r4: u.test('😀'), src: r.flags + u.flags };",
    ].join("\n");
    const escaped = oneByteSource(source);
    expect(escaped).not.toMatch(TWO_BYTE);
    expect(run(escaped)).toEqual(run(source));
    expect(run(escaped)).toMatchObject({ a: "…中文é", c: "…", r1: "中文", r2: true, r3: true, r4: false });
  });

  it("leaves a tagged template as it is written (its tag reads the raw text), and the rest escaped", () => {
    const source = 'module.exports = [String.raw`raw “x”\\n`, "“y”"];';
    const escaped = oneByteSource(source);
    expect(escaped).toContain("String.raw`raw “x”\\n`");
    expect(escaped).toContain('"\\u201cy\\u201d"');
    expect(run(escaped)).toEqual(["raw “x”\\n", "“y”"]);
  });

  it("returns one-byte text as it is", () => {
    const source = 'module.exports = "plain é";';
    expect(oneByteSource(source)).toBe(source);
  });
});

describe("the server's chunks after a build", () => {
  let nextDir: string;
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(nextDir, file)), { recursive: true });
    fs.writeFileSync(path.join(nextDir, file), text);
  };
  const read = (file: string) => fs.readFileSync(path.join(nextDir, file), "utf8");
  const body = 'module.exports=[1,e=>{e.v("shared “code”")}];\n';

  beforeEach(() => {
    nextDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-chunks-"));
    // Turbopack's copies: the same content under two names, each naming its own source map.
    write("server/chunks/[root]__a1._.js", `${body}\n//# sourceMappingURL=%5Broot%5D__a1._.js.map`);
    write("server/chunks/[root]__a1._.js.map", "{}");
    write("server/chunks/[root]__b2._.js", `${body}\n//# sourceMappingURL=%5Broot%5D__b2._.js.map`);
    write("server/chunks/[root]__b2._.js.map", "{}");
    write("server/chunks/other_c3._.js", 'module.exports=[2,e=>{e.v("other")}];\n');
    // The same content in another folder stays: references there name their own folder.
    write("server/chunks/ssr/[root]__d4._.js", body);
    write("server/app/git/route.js", 'R.c("server/chunks/[root]__b2._.js")\nR.c("server/chunks/other_c3._.js")\n');
    write("server/app/git/route.js.nft.json", '{"files":["../../chunks/[root]__b2._.js"]}');
    write("server/app/api/route.js", 'R.c("server/chunks/[root]__a1._.js")\n');
  });
  afterEach(() => fs.rmSync(nextDir, { recursive: true, force: true }));

  it("are one file per content, every reference naming the file kept", () => {
    expect([...duplicateServerChunks(nextDir).keys()].map((file) => path.basename(file))).toEqual(["[root]__b2._.js"]);
    const { removed, bytes } = dedupeServerChunks(nextDir);
    expect(removed).toBe(1);
    expect(bytes).toBeGreaterThan(body.length);
    expect(fs.existsSync(path.join(nextDir, "server/chunks/[root]__b2._.js"))).toBe(false);
    expect(fs.existsSync(path.join(nextDir, "server/chunks/[root]__b2._.js.map"))).toBe(false);
    expect(read("server/app/git/route.js")).toBe(
      'R.c("server/chunks/[root]__a1._.js")\nR.c("server/chunks/other_c3._.js")\n',
    );
    expect(read("server/app/git/route.js.nft.json")).toBe('{"files":["../../chunks/[root]__a1._.js"]}');
    expect(read("server/app/api/route.js")).toBe('R.c("server/chunks/[root]__a1._.js")\n');
    expect(fs.existsSync(path.join(nextDir, "server/chunks/ssr/[root]__d4._.js"))).toBe(true);
    expect(duplicateServerChunks(nextDir).size).toBe(0);
  });

  it("are rewritten in one-byte text as new files, so a copy made with hard links keeps its own", () => {
    const copy = path.join(nextDir, "server/chunks/[root]__a1._.js");
    const linked = `${nextDir}-linked.js`;
    fs.linkSync(copy, linked);
    try {
      expect(twoByteServerChunks(nextDir).length).toBe(3);
      const rewritten = oneByteServerChunks(nextDir);
      expect(rewritten.sort()).toEqual(["[root]__a1._.js", "[root]__b2._.js", path.join("ssr", "[root]__d4._.js")]);
      expect(twoByteServerChunks(nextDir)).toEqual([]);
      const chunk = read("server/chunks/[root]__a1._.js");
      expect(chunk).not.toMatch(TWO_BYTE);
      const [, factory] = run(chunk) as [number, (e: { v: (value: string) => void }) => void];
      let value = "";
      factory({ v: (exported) => (value = exported) });
      expect(value).toBe("shared “code”");
      expect(fs.readFileSync(linked, "utf8")).toMatch(TWO_BYTE);
    } finally {
      fs.rmSync(linked);
    }
  });
});

describe("the dependencies' largest loaded files", () => {
  it("are installed in one-byte text, and a second run changes nothing", () => {
    const modules = path.resolve("node_modules");
    for (const name of ONE_BYTE_DEPENDENCY_FILES)
      expect(fs.readFileSync(path.join(modules, name), "utf8"), name).not.toMatch(TWO_BYTE);
    expect(patchOneByteDependencies(modules)).toEqual([]);
  });

  it("fail the install naming a listed file an upgrade removed", () => {
    const modules = fs.mkdtempSync(path.join(os.tmpdir(), "svc-one-byte-"));
    try {
      expect(() => patchOneByteDependencies(modules)).toThrow(
        `${path.join(modules, ONE_BYTE_DEPENDENCY_FILES[0])} is not there`,
      );
    } finally {
      fs.rmSync(modules, { recursive: true, force: true });
    }
  });
});
