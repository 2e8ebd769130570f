import { describe, expect, it } from "vitest";
import { parsePolicy } from "./parse";
import { globMatcher, pathMatcher } from "./glob";

describe("parsePolicy", () => {
  it("gives the documented defaults for a missing file", () => {
    const result = parsePolicy(null);
    expect(result).toEqual({
      ok: true,
      policy: {
        requiredApprovals: 0,
        merge: { allowForce: false, requireFreshBase: true, autoQueue: false },
        protection: { locked: false, allowDirectPush: true },
        evaluators: { secretScan: { allowPaths: [] } },
        deploys: [],
        evaluation: { waitSeconds: 30 },
      },
    });
  });

  it("treats an empty file as the defaults", () => {
    const result = parsePolicy("# nothing yet\n");
    expect(result.ok && result.policy.merge.requireFreshBase).toBe(true);
  });

  it("reads every key", () => {
    const result = parsePolicy(`
requiredApprovals: 2
merge: { allowForce: true, requireFreshBase: false, autoQueue: true }
protection:
  locked: true
  allowDirectPush: false
evaluators:
  diff: { maxFiles: 10, maxLines: 100, forbiddenPaths: ["secrets/**"] }
  webhook: { url: "https://ci.example.com/hook", timeoutMs: 2000 }
  llm: { instructions: "be strict" }
  sandbox: { command: "npm test", memoryMb: 256 }
deploys:
  - name: prod
    provider: webhook
    url: https://deploy.example.com/hook
    secrets: [DEPLOY_TOKEN]
`);
    if (!result.ok) throw new Error(result.error);
    expect(result.policy.requiredApprovals).toBe(2);
    expect(result.policy.merge).toEqual({ allowForce: true, requireFreshBase: false, autoQueue: true });
    expect(result.policy.protection).toEqual({ locked: true, allowDirectPush: false });
    expect(result.policy.evaluators.diff).toEqual({ maxFiles: 10, maxLines: 100, forbiddenPaths: ["secrets/**"] });
    expect(result.policy.evaluators.webhook).toEqual({ url: "https://ci.example.com/hook", timeoutMs: 2000 });
    expect(result.policy.evaluators.sandbox).toEqual({
      command: "npm test",
      memoryMb: 256,
      timeoutMs: 120_000,
      retries: 0,
    });
    expect(result.policy.deploys).toEqual([
      {
        name: "prod",
        provider: "webhook",
        url: "https://deploy.example.com/hook",
        secrets: ["DEPLOY_TOKEN"],
        requireApproval: false,
        timeoutMs: 600_000,
      },
    ]);
  });

  it("reads the sandbox runner's keys and the evaluation wait", () => {
    const result = parsePolicy(`
evaluators:
  sandbox:
    command: npm test
    setup: npm ci
    cache: { key: [package-lock.json], paths: [node_modules] }
    reports: ["reports/*.xml"]
    retries: 2
    timeoutMs: 600000
    memoryMb: 2048
evaluation: { waitSeconds: 0 }
`);
    if (!result.ok) throw new Error(result.error);
    expect(result.policy.evaluators.sandbox).toEqual({
      command: "npm test",
      setup: "npm ci",
      cache: { key: ["package-lock.json"], paths: ["node_modules"] },
      reports: ["reports/*.xml"],
      retries: 2,
      timeoutMs: 600_000,
      memoryMb: 2048,
    });
    expect(result.policy.evaluation).toEqual({ waitSeconds: 0 });
  });

  it.each([
    ["requiredApprovals: -1", "requiredApprovals"],
    ["requiredApprovals: two", "requiredApprovals"],
    ["merge: { allowForse: true }", 'unknown key "allowForse"'],
    ["evaluators: { lint: {} }", 'unknown key "lint"'],
    ["evaluators: { webhook: { url: 'ftp://x' } }", "evaluators.webhook.url"],
    ["evaluators: { sandbox: {} }", "evaluators.sandbox.command"],
    ["evaluators: { sandbox: { command: x, retries: -1 } }", "evaluators.sandbox.retries"],
    ["evaluators: { sandbox: { command: x, retries: 1.5 } }", "evaluators.sandbox.retries"],
    [
      "evaluators: { sandbox: { command: x, setup: y, cache: { key: [package-lock.json] } } }",
      "evaluators.sandbox.cache.paths",
    ],
    [
      "evaluators: { sandbox: { command: x, cache: { key: [a], paths: [b] } } }",
      "evaluators.sandbox.cache: a cache keeps what setup produces",
    ],
    [
      "evaluators: { sandbox: { command: x, setup: y, cache: { key: [../x], paths: [a] } } }",
      "evaluators.sandbox.cache.key.0",
    ],
    [
      "evaluators: { sandbox: { command: x, setup: y, cache: { key: [a], paths: [/abs] } } }",
      "evaluators.sandbox.cache.paths.0",
    ],
    ["evaluators: { sandbox: { command: x, setup: y, cache: { key: [a], paths: [b], ttl: 3 } } }", 'unknown key "ttl"'],
    ["evaluators: { sandbox: { command: x, reports: report.xml } }", "evaluators.sandbox.reports"],
    ["evaluators: { sandbox: { command: x, setup: '' } }", "evaluators.sandbox.setup"],
    ["evaluation: { waitSeconds: 301 }", "evaluation.waitSeconds"],
    ["evaluation: { waitSeconds: -1 }", "evaluation.waitSeconds"],
    ["evaluation: { wait: 3 }", 'unknown key "wait"'],
    ["- a\n- b", "must be a mapping"],
    ["merge: [unclosed", "not valid YAML"],
    ["a: 1\na: 2", "not valid YAML"],
    ["deploys: [{ name: prod, provider: ftp }]", "deploys.0.provider"],
    ["deploys: [{ name: prod, provider: webhook }]", "deploys.0.url"],
    ["deploys: [{ name: Prod, provider: command, command: x }]", "deploys.0.name"],
    ["deploys: [{ name: p, provider: command, command: x, secrets: [lower] }]", "deploys.0.secrets.0"],
    ["deploys: [{ name: p, provider: command, command: x, timeoutMs: 3600001 }]", "deploys.0.timeoutMs"],
    ["deploys: [{ name: p, provider: command, command: x, url: 'https://x.example' }]", 'unknown key "url"'],
    [
      "deploys: [{ name: p, provider: command, command: x }, { name: p, provider: command, command: y }]",
      "deploys.1.name",
    ],
  ])("reports %j clearly", (text, expected) => {
    const result = parsePolicy(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toContain(".svc/policy.yml");
      expect(result.error).toContain(expected);
    }
  });
});

describe("globs", () => {
  it.each([
    ["src/**", "src/a/b.ts", true],
    ["src/**", "lib/src/a.ts", false],
    ["**/fixtures/**", "a/fixtures/x.json", true],
    ["**/fixtures/**", "fixtures/x.json", true],
    ["*.lock", "deep/dir/yarn.lock", true],
    ["docs/*.md", "docs/a/b.md", false],
    ["docs/*.md", "docs/b.md", true],
    ["build/", "build/out/x", true],
    ["a?.txt", "ab.txt", true],
    ["a.txt", "xa.txt", false],
    ["*.{pem,key}", "certs/server.key", true],
    ["*.{pem,key}", "certs/server.crt", false],
    ["id_[rd]sa", "home/.ssh/id_rsa", true],
    ["id_[rd]sa", "home/.ssh/id_ecdsa", false],
    ["*.env", "config/.prod.env", true],
    ["/top.txt", "top.txt", true],
    ["/top.txt", "sub/top.txt", false],
  ])("%s matches %s: %s", (glob, path, expected) => {
    expect(globMatcher(glob)(path)).toBe(expected);
  });

  it("a later !pattern excludes what earlier patterns matched", () => {
    const match = pathMatcher(["secrets/**", "!secrets/README.md"]);
    expect(match("secrets/prod.key")).toBe(true);
    expect(match("secrets/README.md")).toBe(false);
    expect(pathMatcher(["!a.txt"])("a.txt")).toBe(false);
  });

  it("matches any of a list", () => {
    const match = pathMatcher(["*.md", "infra/**"]);
    expect(match("infra/x.tf")).toBe(true);
    expect(match("README.md")).toBe(true);
    expect(match("src/x.ts")).toBe(false);
    expect(pathMatcher([])("x")).toBe(false);
  });
});
