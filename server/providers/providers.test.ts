import { describe, expect, it } from "vitest";
import { withEnv } from "@/tests/support/env";
import { classifyGitFailure, gitFailureMessage, parseSourceUrl, redactCredentials } from "./index";

describe("classifyGitFailure", () => {
  it.each([
    ["fatal: write error: No space left on device", "STORAGE_ERROR"],
    ["error: unable to write file objects/pack/tmp_pack_x", "STORAGE_ERROR"],
    ["fatal: unable to access 'http://x/o/r.git/': The requested URL returned error: 429", "RATE_LIMITED"],
    ["fatal: Authentication failed for 'http://x/o/r.git/'", "AUTH_ERROR"],
    ["fatal: could not read Username for 'https://github.com': terminal prompts disabled", "AUTH_ERROR"],
    ["remote: Repository not found.\nfatal: repository 'https://github.com/o/r.git/' not found", "NOT_FOUND"],
    ["fatal: couldn't find remote ref refs/heads/nope", "NOT_FOUND"],
    ["error: RPC failed; curl 28 Operation too slow. Less than 1 bytes/sec transferred the last 2 seconds", "TIMEOUT"],
    [
      "fatal: unable to access 'http://127.0.0.1:9/o/r.git/': Failed to connect to 127.0.0.1 port 9: Connection refused",
      "NETWORK_ERROR",
    ],
    ["fatal: bad object 1234", "GIT_ERROR"],
  ])("%s -> %s", (stderr, category) => expect(classifyGitFailure(stderr)).toBe(category));
});

describe("credentials never travel in messages", () => {
  it("strips user info from URLs and Authorization values", () => {
    expect(redactCredentials("fatal: unable to access 'https://x-access-token:ghp_secret@github.com/o/r.git/'")).toBe(
      "fatal: unable to access 'https://github.com/o/r.git/'",
    );
    expect(redactCredentials("Authorization: Basic eC1hY2Nlc3M=")).toBe("Authorization: Basic [redacted]");
    expect(
      gitFailureMessage("remote: Counting objects: 3\rReceiving objects: 50% (1/2)\nfatal: https://u:p@h/x failed"),
    ).toBe("fatal: https://h/x failed");
  });
});

describe("parseSourceUrl", () => {
  it("accepts GITHUB_URL/<owner>/<repo> with an optional .git or trailing slash, under a path prefix too", async () => {
    expect(parseSourceUrl("https://github.com/octo/hello.git")).toEqual({
      provider: "github",
      owner: "octo",
      repo: "hello",
      url: "https://github.com/octo/hello",
    });
    expect(parseSourceUrl("https://github.com/octo/hello/").repo).toBe("hello");
    await withEnv({ GITHUB_URL: "https://ghe.example/git" }, async () => {
      expect(parseSourceUrl("https://ghe.example/git/octo/hello").url).toBe("https://ghe.example/git/octo/hello");
      expect(() => parseSourceUrl("https://ghe.example/octo/hello")).toThrow(/Unsupported provider/);
    });
  });

  it.each([
    "http://github.com/octo/hello",
    "https://github.com.evil/octo/hello",
    "https://github.com/octo",
    "https://github.com/octo/hello/issues",
    "https://github.com/-x/hello",
    "https://github.com/octo/..",
    "https://t:x@github.com/octo/hello",
    "ssh://git@github.com/octo/hello",
  ])("refuses %s", (url) => expect(() => parseSourceUrl(url)).toThrow(/Unsupported provider/));
});
