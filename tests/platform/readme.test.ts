import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The README is what a newcomer reads in ten minutes; the rest lives in docs/. Both are read by
// users of the repository alone, so they point nowhere outside it.
const readme = fs.readFileSync("README.md", "utf8");
const documents = [
  "README.md",
  ...fs
    .readdirSync("docs")
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

describe("the README and docs/", () => {
  it("keep the README short: what it is, how to run it, the walkthrough, configuration, where to go next", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
    const sections = [...readme.matchAll(/^## (.+)$/gm)].map((match) => match[1]);
    expect(sections).toEqual([
      "Run it",
      "Walkthrough: from nothing to a merged change",
      "Configuration",
      "Tests",
      "Where to go next",
    ]);
  });

  it("name every environment variable of server/config.ts in the README", () => {
    const schema = fs.readFileSync("server/config.ts", "utf8");
    const names = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)].map((match) => match[1]);
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });

  it("give the test commands .ci/run runs", () => {
    const ci = fs.readFileSync(".ci/run", "utf8");
    for (const command of ["npm test", "bash scripts/test-postgres.sh"]) {
      expect(ci).toContain(`${command} `);
      expect(readme).toMatch(new RegExp(`\`${command}\`|^ {4}${command} `, "m"));
    }
  });

  it("link only to files of the repository", () => {
    const broken: string[] = [];
    for (const document of documents) {
      const text = fs.readFileSync(document, "utf8");
      if (text.includes("../shared")) broken.push(`${document}: ../shared`);
      for (const [, target] of text.matchAll(/\]\(([^)]+)\)/g)) {
        if (/^[a-z]+:/.test(target) || target.startsWith("#")) continue;
        const file = path.normalize(path.join(path.dirname(document), target.split("#")[0]));
        if (file.startsWith("..") || !fs.existsSync(file)) broken.push(`${document}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("are what the repository cites for the rules beyond the specification (docs/contracts.md), not notes kept outside it", () => {
    const found = spawnSync("git", ["grep", "-nE", "contracts/[a-z-]+\\.md|RECIPES\\.md", "--", "."], {
      encoding: "utf8",
    });
    expect(found.stdout).toBe("");
    expect(found.status).toBe(1);
  });

  it("say how to reproduce every benchmark", () => {
    const benchmarks = fs.readFileSync("docs/benchmarks.md", "utf8");
    const benches = fs
      .readdirSync("bench", { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !["support", ".work"].includes(entry.name));
    expect(benches.length).toBeGreaterThan(10);
    expect(
      benches.map((entry) => entry.name).filter((name) => !new RegExp(`bench/${name}/run\\.(ts|mjs)`).test(benchmarks)),
    ).toEqual([]);
  });
});
