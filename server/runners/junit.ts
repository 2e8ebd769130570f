import { XMLParser } from "fast-xml-parser";
import type { RunFinding } from "./types";
import { locate, type Locator } from "./locate";

/**
 * Failed test cases of a JUnit XML report, in the shapes jest-junit, vitest, pytest and
 * go-junit-report write: `testsuites > testsuite (nested or not) > testcase` with a `failure` or
 * `error` child. The file and line come from the case's attributes, else from the first place in
 * the failure's text that names a file of the repository (the assertion, not the declaration).
 */
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  textNodeName: "text",
  isArray: (name, _path, _leaf, isAttribute) =>
    !isAttribute && ["testsuite", "testcase", "failure", "error"].includes(name),
  processEntities: true,
  parseTagValue: false,
  parseAttributeValue: false,
});

type Node = Record<string, unknown>;
const MESSAGE_CHARS = 4000;

const text = (value: unknown): string =>
  typeof value === "string"
    ? value
    : typeof value === "object" && value && typeof (value as Node).text === "string"
      ? ((value as Node).text as string)
      : "";
const attr = (node: Node, name: string): string | undefined =>
  typeof node[`@_${name}`] === "string" ? (node[`@_${name}`] as string) : undefined;

/** Cases directly in `node` (node --test's reporter puts top-level tests under testsuites), then in its suites, nested. */
function* cases(
  node: Node,
  suiteFile: string | undefined,
): Generator<{ testcase: Node; suiteFile: string | undefined }> {
  for (const testcase of (node.testcase as Node[] | undefined) ?? []) yield { testcase, suiteFile };
  for (const suite of (node.testsuite as Node[] | undefined) ?? []) {
    const file = attr(suite, "file") ?? attr(suite, "filepath") ?? suiteFile;
    yield* cases(suite, file);
  }
}

export function junitFindings(xml: string, locator: Locator): RunFinding[] {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch {
    return [];
  }
  const root = (doc.testsuites as Node | undefined) ?? doc;
  const findings: RunFinding[] = [];
  for (const { testcase, suiteFile } of cases(typeof root === "object" && root ? root : {}, undefined)) {
    const problem = ((testcase.failure as unknown[] | undefined) ?? (testcase.error as unknown[] | undefined))?.[0];
    if (problem === undefined) continue;
    const body = text(problem).trim();
    const message =
      (typeof problem === "object" && problem ? attr(problem as Node, "message") : undefined) ||
      body.split("\n").slice(0, 20).join("\n") ||
      "failed";
    const name = attr(testcase, "name") ?? "(unnamed)";
    const declared = attr(testcase, "file") ?? suiteFile ?? pathLike(attr(testcase, "classname"));
    const where = locate(
      [body, declared && attr(testcase, "line") ? `${declared}:${attr(testcase, "line")}` : "", declared ?? ""],
      locator,
      declared,
    );
    findings.push({ message: message.slice(0, MESSAGE_CHARS), ...where, rule: `test:${name}` });
  }
  return findings;
}

/** vitest names a case's class by its file; other tools by a dotted or package name. */
const pathLike = (value: string | undefined) =>
  value && /\.[a-z]{1,5}$/i.test(value) && value.includes("/") ? value : undefined;
