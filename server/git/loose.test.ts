import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { encodeTree, storedZlib, treeOrderKey } from "./loose";

describe("storedZlib", () => {
  it("is a zlib stream any inflater reads back, across the 65,535-byte block limit", () => {
    for (const size of [0, 1, 100, 65_535, 65_536, 65_537, 200_000]) {
      const data = Buffer.alloc(size);
      for (let i = 0; i < size; i++) data[i] = (i * 7919) & 255;
      expect(zlib.inflateSync(storedZlib(data)).equals(data)).toBe(true);
    }
  });

  it("is byte for byte what zlib writes at level 0 for a small object (same checksum)", () => {
    const data = Buffer.from("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@x> 1 +0000\n");
    expect(storedZlib(data).equals(zlib.deflateSync(data, { level: 0 }))).toBe(true);
  });
});

describe("encodeTree", () => {
  it("orders names bytewise as UTF-8 (beyond the BMP included), directories as if they ended with /", () => {
    const oid = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    const names: Array<[string, string]> = [
      ["100644", "a.b"],
      ["40000", "a"],
      ["100644", "a-"],
      ["100644", "\u{1F600}"],
      ["100644", "\uFFFD"],
      ["100644", "\u00FC"],
      ["040000", "b"],
      ["100644", "b.txt"],
    ];
    const { entries } = encodeTree(names.map(([mode, path]) => ({ mode, path, oid, type: "blob" as const })));
    const bytewise = [...entries].sort((x, y) => Buffer.compare(treeOrderKey(x), treeOrderKey(y)));
    expect(entries.map((e) => e.path)).toEqual(bytewise.map((e) => e.path));
    expect(entries.map((e) => e.path)).toEqual(["a-", "a.b", "a", "b.txt", "b", "\u00FC", "\uFFFD", "\u{1F600}"]);
    expect(entries.find((e) => e.path === "a")).toMatchObject({ mode: "040000", type: "tree" });
  });
});
