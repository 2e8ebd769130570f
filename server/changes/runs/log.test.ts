import { describe, expect, it } from "vitest";
import { tailLines } from "./log";

describe("tailLines", () => {
  it.each([
    ["a\nb\nc\n", 2, "b\nc\n"],
    ["a\nb\nc", 2, "b\nc"],
    ["a\nb\n", 5, "a\nb\n"],
    ["a\nb\n", 0, ""],
    ["", 3, ""],
    ["\n\n", 1, "\n"],
  ])("the last lines of %j (%i)", (text, lines, expected) => {
    expect(tailLines(text, lines)).toBe(expected);
  });
});
