import { describe, expect, it } from "vitest";
import { encodeTree } from "./loose";
import { parseTreeContent } from "./objects";

const oid = (n: number) => n.toString(16).padStart(2, "0").repeat(20);
const raw = (...entries: Array<[mode: string, name: string, id: string]>) =>
  new Uint8Array(
    Buffer.concat(entries.flatMap(([mode, name, id]) => [Buffer.from(`${mode} ${name}\0`), Buffer.from(id, "hex")])),
  );

describe("parseTreeContent", () => {
  it("reads back what encodeTree writes: every kind of mode, names in UTF-8 and names git refuses to check out", () => {
    const tree = [
      { mode: "100644", path: "GIT~1", oid: oid(1), type: "blob" as const },
      { mode: "100755", path: "a\\b", oid: oid(2), type: "blob" as const },
      { mode: "120000", path: "link", oid: oid(3), type: "blob" as const },
      { mode: "160000", path: "sub", oid: oid(4), type: "commit" as const },
      { mode: "040000", path: "dir", oid: oid(5), type: "tree" as const },
      { mode: "100644", path: "\u00FCber \u{1F600}.txt", oid: oid(255), type: "blob" as const },
    ];
    const { content, entries } = encodeTree(tree);
    expect(parseTreeContent(content)).toEqual(entries);
    expect(parseTreeContent(content.subarray(0, 0))).toEqual([]);
  });

  it("reads a tree inside a larger buffer without the bytes around it", () => {
    const inner = raw(["100644", "a", oid(7)]);
    const outer = new Uint8Array(inner.length + 8).fill(0x20);
    outer.set(inner, 4);
    expect(parseTreeContent(outer.subarray(4, 4 + inner.length))).toEqual([
      { mode: "100644", path: "a", oid: oid(7), type: "blob" },
    ]);
  });

  it("pads a short mode to six digits and keeps a long or non-octal one as written", () => {
    const modes = parseTreeContent(
      raw(["644", "a", oid(1)], ["0100644", "b", oid(2)], ["10x644", "c", oid(3)], ["100644", "d", oid(4)]),
    ).map((entry) => entry.mode);
    expect(modes).toEqual(["000644", "0100644", "10x644", "100644"]);
  });

  it("refuses a tree cut inside an entry", () => {
    const whole = raw(["100644", "a", oid(1)]);
    for (const cut of [1, 8, 9, whole.length - 1])
      expect(() => parseTreeContent(whole.subarray(0, cut))).toThrow("Malformed tree object");
  });
});
