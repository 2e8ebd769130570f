import { describe, expect, it } from "vitest";
import { pairedParts, wordDiff } from "@/app/(pages)/_lib/word-diff";

describe("wordDiff", () => {
  it("marks the changed words of a rewritten line, never half a word", () => {
    expect(wordDiff("const limit = 10;", "const limit = 20;")).toEqual([
      { before: "const limit = ", changed: "10", after: ";" },
      { before: "const limit = ", changed: "20", after: ";" },
    ]);
    expect(wordDiff("hello world", "hello there")).toEqual([
      { before: "hello ", changed: "world", after: "" },
      { before: "hello ", changed: "there", after: "" },
    ]);
  });

  it("leaves lines with nothing in common whole", () => {
    expect(wordDiff("abc", "xyz")).toBeNull();
  });

  it("pairs removed lines with the added lines that follow them, in order", () => {
    const parts = pairedParts([
      { kind: "context", text: "a" },
      { kind: "del", text: "x = 1" },
      { kind: "del", text: "y = 2" },
      { kind: "add", text: "x = 3" },
      { kind: "add", text: "z" },
      { kind: "add", text: "extra" },
    ]);
    expect(parts[0]).toBeNull();
    expect(parts[1]).toEqual({ before: "x = ", changed: "1", after: "" });
    expect(parts[3]).toEqual({ before: "x = ", changed: "3", after: "" });
    expect(parts[2]).toBeNull();
    expect(parts[5]).toBeNull();
  });
});
