import { describe, expect, it } from "vitest";
import { isDotGitSpelling, segmentProblem } from "./path-rules";

describe("git's path rules", () => {
  it.each([
    ".git",
    ".GIT",
    ".Git",
    "GIT~1",
    "git~1",
    ".git.",
    ".git ",
    ".git. .",
    ".git::$INDEX_ALLOCATION",
    ".g\u200cit",
    "\ufeff.git",
    ".gi\u200dt",
    ".GIT\u200e",
  ])("%j is a .git spelling", (name) => expect(isDotGitSpelling(name)).toBe(true));

  it.each([".gitignore", ".github", "git", "x.git", ".git2", "git~2", ".gitmodules", "my.git.d"])(
    "%j is an ordinary name",
    (name) => {
      expect(isDotGitSpelling(name)).toBe(false);
      expect(segmentProblem(name)).toBeUndefined();
    },
  );

  it("refuses backslashes, empty and relative segments", () => {
    expect(segmentProblem("a\\b")).toMatch(/backslash/);
    expect(segmentProblem("")).toMatch(/empty/);
    expect(segmentProblem("..")).toMatch(/relative/);
  });
});
