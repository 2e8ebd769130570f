import { describe, expect, it } from "vitest";
import { DIFF_EXPAND_CONTEXT_MAX, DIFF_EXPAND_FILES_MAX } from "@/server/limits";
import { expandLink, expansionQuery, expansionsOf } from "@/app/(pages)/[namespace]/[slug]/changes/[id]/expand";

describe("the change page's expanded files", () => {
  it("reads ?expand=<file>:<lines>, one or many, and leaves out what does not parse or exceeds the bounds", () => {
    expect(expansionsOf({ expand: "3:23" })).toEqual(new Map([[3, 23]]));
    expect(expansionsOf({ expand: ["3:23", "5:43", "3:63"] })).toEqual(
      new Map([
        [3, 63],
        [5, 43],
      ]),
    );
    const bad = ["3", "3:", ":4", "-1:4", "3:4:5", "a:4", `1:${DIFF_EXPAND_CONTEXT_MAX + 1}`, "1:99999", " 1:4"];
    expect(expansionsOf({ expand: bad })).toEqual(new Map());
    expect(expansionsOf({})).toEqual(new Map());
    const many = Array.from({ length: DIFF_EXPAND_FILES_MAX + 3 }, (_, i) => `${i}:23`);
    expect(expansionsOf({ expand: many }).size).toBe(DIFF_EXPAND_FILES_MAX);
  });

  it("links a file to 20 more lines, keeping the page and the other files, until the bound", () => {
    const link = expandLink(2, new Map([[51, 23]]));
    expect(link(50)).toEqual({ href: `?page=2&expand=51%3A23&expand=50%3A23#file-50`, more: 20 });
    expect(link(51)).toEqual({ href: `?page=2&expand=51%3A43#file-51`, more: 20 });
    const near = expandLink(1, new Map([[0, DIFF_EXPAND_CONTEXT_MAX - 5]]));
    expect(near(0)?.more).toBe(5);
    expect(expandLink(1, new Map([[0, DIFF_EXPAND_CONTEXT_MAX]]))(0)).toBeNull();
  });

  it("drops the oldest expansion rather than link past the bound on files", () => {
    const full = new Map(Array.from({ length: DIFF_EXPAND_FILES_MAX }, (_, i) => [i, 23] as [number, number]));
    const href = expandLink(1, full)(40)!.href;
    const expanded = new URLSearchParams(href.split("#")[0]).getAll("expand");
    expect(expanded).toHaveLength(DIFF_EXPAND_FILES_MAX);
    expect(expanded).not.toContain("0:23");
    expect(expanded.at(-1)).toBe("40:23");
    expect(expansionQuery(1, new Map())).toBe("?page=1");
  });
});
