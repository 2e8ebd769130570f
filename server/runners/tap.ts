import { parse as parseYaml } from "yaml";
import type { RunFinding } from "./types";
import { locate, type Locator } from "./locate";

/**
 * Failed tests in TAP output as `node --test` writes it: `not ok N - name` at any depth, followed
 * by an indented YAML block (`---` ... `...`) with `error`, `stack` and `location`. A test that only
 * failed because its subtests did (`failureType: subtestsFailed`) is not a finding of its own.
 */
const NOT_OK = /^(\s*)not ok \d+ - (.*?)(?:\s+#\s+(?:TODO|SKIP)\b.*)?$/;
const MESSAGE_CHARS = 4000;

export function tapFindings(output: string, locator: Locator): RunFinding[] {
  const lines = output.split("\n");
  const findings: RunFinding[] = [];
  for (let i = 0; i < lines.length; i++) {
    const head = NOT_OK.exec(lines[i]);
    if (!head) continue;
    if (/#\s+(TODO|SKIP)\b/.test(lines[i])) continue;
    const indent = `${head[1]}  `;
    const details = yamlBlock(lines, i + 1, indent);
    if (details?.failureType === "subtestsFailed") continue;
    const name = head[2].replace(/\\#/g, "#").replace(/\\\\/g, "\\");
    const error = typeof details?.error === "string" ? details.error : "failed";
    const stack = typeof details?.stack === "string" ? details.stack : "";
    const location = typeof details?.location === "string" ? details.location : "";
    const declared = location.replace(/:\d+:\d+$/, "") || undefined;
    findings.push({
      message: error.trim().slice(0, MESSAGE_CHARS) || "failed",
      ...locate([stack, location, name], locator, declared),
      rule: `test:${name}`,
    });
  }
  return findings;
}

function yamlBlock(lines: string[], start: number, indent: string): Record<string, unknown> | null {
  if (lines[start]?.trimEnd() !== `${indent}---`) return null;
  const body: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    if (lines[i].trimEnd() === `${indent}...`) {
      try {
        const value: unknown = parseYaml(body.join("\n"));
        return typeof value === "object" && value ? (value as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    }
    body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i].trimStart());
  }
  return null;
}
