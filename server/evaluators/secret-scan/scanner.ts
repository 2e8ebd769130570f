import { pathMatcher } from "@/server/policy";
import { shannonEntropy } from "./entropy";
import { SECRET_RULES, type SecretRule } from "./rules";

export interface SecretFinding {
  rule: string;
  description: string;
  file: string;
  line: number;
  /** A redacted hint of the secret: never the secret itself. */
  preview: string;
}

/** Lockfiles and test fixtures carry hashes and fake credentials by design. */
export const BUILTIN_ALLOW_PATHS = [
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "Cargo.lock",
  "go.sum",
  "poetry.lock",
  "Pipfile.lock",
  "Gemfile.lock",
  "composer.lock",
  "*.lock",
  "**/fixtures/**",
  "**/__fixtures__/**",
  "**/testdata/**",
  "**/test-fixtures/**",
];

/** A line carrying one of these markers is skipped (an acknowledged false positive). */
const INLINE_ALLOW = /gitleaks:allow|svc:allow-secret/;
const PLACEHOLDER =
  /x{4,}|\*{4,}|example|placeholder|changeme|dummy|your[_-]|<[^>]*>|\$\{|\{\{|process\.env|os\.environ|getenv/i;
const DOTTED_IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;

export interface ScanFile {
  path: string;
  /** The file before the change; null for an added file. */
  oldText: string | null;
  newText: string;
}

function redact(secret: string): string {
  const shown = secret.length >= 12 ? 4 : 2;
  return `${secret.slice(0, shown)}… (${secret.length} chars)`;
}

function plausible(rule: SecretRule, secret: string): boolean {
  if (rule.minEntropy === undefined) return true;
  if (PLACEHOLDER.test(secret) || DOTTED_IDENTIFIER.test(secret)) return false;
  if (rule.id === "generic-secret" && !/\d/.test(secret)) return false;
  return shannonEntropy(secret) >= rule.minEntropy;
}

/** 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function lineText(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  const end = text.indexOf("\n", offset);
  return text.slice(start, end === -1 ? text.length : end);
}

/**
 * The lines a change adds to a file, as one text plus the new-file line number of each of its
 * lines. A line present anywhere in the old file counts as unchanged (moved lines are not
 * re-reported); this is linear, unlike a full diff.
 */
export function addedText(oldText: string | null, newText: string): { text: string; lineNumbers: number[] | null } {
  if (oldText === null) return { text: newText, lineNumbers: null };
  const old = new Set(oldText.split("\n"));
  const kept: string[] = [];
  const lineNumbers: number[] = [];
  const lines = newText.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!old.has(lines[i])) {
      kept.push(lines[i]);
      lineNumbers.push(i + 1);
    }
  }
  return { text: kept.join("\n"), lineNumbers };
}

export const isBinaryText = (text: string) => text.slice(0, 8000).includes("\u0000");

/** Scans one text (already reduced to what the change adds). */
export function scanText(
  path: string,
  text: string,
  lineNumbers: number[] | null,
  rules: SecretRule[] = SECRET_RULES,
): SecretFinding[] {
  const findings: SecretFinding[] = [];
  const lower = text.toLowerCase();
  for (const rule of rules) {
    if (!rule.keywords.some((keyword) => lower.includes(keyword))) continue;
    rule.regex.lastIndex = 0;
    for (const match of text.matchAll(rule.regex)) {
      const secret = match[rule.group ?? 0] ?? match[0];
      if (!plausible(rule, secret)) continue;
      const offset = match.index ?? 0;
      if (INLINE_ALLOW.test(lineText(text, offset))) continue;
      const local = lineAt(text, offset);
      findings.push({
        rule: rule.id,
        description: rule.description,
        file: path,
        line: lineNumbers ? lineNumbers[local - 1] : local,
        preview: redact(secret),
      });
    }
  }
  return findings;
}

/** Scans what a change adds, skipping binary files and allowlisted paths. */
export function scanFiles(files: ScanFile[], options: { allowPaths?: string[] } = {}): SecretFinding[] {
  const allowed = pathMatcher([...BUILTIN_ALLOW_PATHS, ...(options.allowPaths ?? [])]);
  const findings: SecretFinding[] = [];
  for (const file of files) {
    if (allowed(file.path) || isBinaryText(file.newText)) continue;
    const { text, lineNumbers } = addedText(file.oldText, file.newText);
    if (text.length > 0) findings.push(...scanText(file.path, text, lineNumbers));
  }
  return findings;
}

export const describeSecretFinding = (f: SecretFinding) => `${f.description} in ${f.file}:${f.line} (${f.preview})`;
