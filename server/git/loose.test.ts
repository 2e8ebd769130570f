import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { compareTreeEntries, encodeTree, inTreeOrder, storedZlib } from "./loose";

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
    const orderName = (e: { mode: string; path: string }) => (e.mode === "040000" ? `${e.path}/` : e.path);
    const bytewise = [...entries].sort((x, y) => Buffer.compare(Buffer.from(orderName(x)), Buffer.from(orderName(y))));
    expect(entries.map((e) => e.path)).toEqual(bytewise.map((e) => e.path));
    expect(entries.map((e) => e.path)).toEqual(["a-", "a.b", "a", "b.txt", "b", "\u00FC", "\uFFFD", "\u{1F600}"]);
    expect(entries.find((e) => e.path === "a")).toMatchObject({ mode: "040000", type: "tree" });
  });

  it("keeps an entry read before as it is, copies a caller's own (never freezing it) and refuses a bad id", () => {
    const oid = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    const read = Object.freeze({ mode: "040000", path: "a", oid, type: "tree" as const });
    const own = { mode: "40000", path: "b", oid, type: "blob" as const };
    const { content, entries } = encodeTree([read, own]);
    expect(entries[0]).toBe(read);
    expect(entries[1]).not.toBe(own);
    expect(entries[1]).toEqual({ mode: "040000", path: "b", oid, type: "tree" });
    expect(Object.isFrozen(own)).toBe(false);
    const id = Buffer.from(oid, "hex");
    expect(content).toEqual(Buffer.concat([Buffer.from("40000 a\0"), id, Buffer.from("40000 b\0"), id]));
    expect(() => encodeTree([{ ...own, oid: oid.replace("4b", "zz") }])).toThrow(/Not an object id/);
    expect(() => encodeTree([{ ...own, oid: oid.slice(2) }])).toThrow(/Not an object id/);
  });
});

describe("inTreeOrder", () => {
  const oid = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
  const entry = (mode: string, path: string) => ({
    mode,
    path,
    oid,
    type: mode === "040000" ? ("tree" as const) : ("blob" as const),
  });
  const inOrder = [
    entry("100644", "a-"),
    entry("100644", "a.b"),
    entry("040000", "a"),
    entry("100644", "\uFFFD"),
    entry("100644", "\u{1F600}"),
  ];

  it("keeps a tree that is in git's order as it is", () => {
    expect(inTreeOrder(inOrder)).toBe(inOrder);
  });

  it("keeps a frozen tree (the parsed cache's) as it is on every call, and sorts a frozen one out of order each time", () => {
    const frozen = Object.freeze([...inOrder]);
    expect(inTreeOrder(frozen)).toBe(frozen);
    expect(inTreeOrder(frozen)).toBe(frozen);
    const frozenShuffled = Object.freeze([inOrder[1], inOrder[0], ...inOrder.slice(2)]);
    expect(inTreeOrder(frozenShuffled)).toEqual(inOrder);
    expect(inTreeOrder(frozenShuffled)).toEqual(inOrder);
  });

  it("sorts one that is not, bytewise as UTF-8, surrogate pairs after the rest of the BMP", () => {
    const shuffled = [inOrder[4], inOrder[2], inOrder[0], inOrder[3], inOrder[1]];
    expect(inTreeOrder(shuffled)).toEqual(inOrder);
    expect(compareTreeEntries(entry("100644", "\u{1F600}"), entry("100644", "\uFFFD"))).toBeGreaterThan(0);
    expect("\u{1F600}" < "\uFFFD").toBe(true);
  });

  it("agrees with the bytes of the names git sorts by, for every pair of a mixed set", () => {
    const names = ["a", "a-", "a.b", "ab", "b", "\u00FC", "\uE000", "\uFFFD", "\u{1F600}", "\u{1F600}x", "z\u{10000}"];
    const entries = names.flatMap((name) => [entry("100644", name), entry("040000", name)]);
    const bytes = (e: { mode: string; path: string }) => Buffer.from(e.mode === "040000" ? `${e.path}/` : e.path);
    for (const x of entries)
      for (const y of entries)
        expect(Math.sign(compareTreeEntries(x, y)), `${x.mode} ${x.path} vs ${y.mode} ${y.path}`).toBe(
          Math.sign(Buffer.compare(bytes(x), bytes(y))),
        );
  });
});
