/**
 * Checks answers against the OpenAPI document: a status an operation does not list is a finding.
 * The fuzz suite and the authorization matrix send every answer they get through `check`.
 */
interface Document {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
}

interface Template {
  method: string;
  path: string;
  pattern: RegExp;
  statuses: Set<number>;
}

const escape = (text: string) => text.replace(/[.*+?^$()|[\]\\]/g, "\\$&");

export function conformanceChecker(document: Document) {
  const templates: Template[] = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      pattern: new RegExp(`^${escape(path).replace(/\\\{[^}]+\\\}|\{[^}]+\}/g, "[^/]+")}/?$`),
      statuses: new Set(Object.keys(operation.responses).map(Number)),
    })),
  );
  const findings = new Set<string>();
  return {
    /** Records a finding when no operation serving `method` at `url` lists `status`. */
    check(method: string, url: string, status: number): void {
      const pathname = new URL(url, "http://x").pathname;
      const verb = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
      const matches = templates.filter((template) => template.method === verb && template.pattern.test(pathname));
      // No operation at this path and method: the pipeline's 404 or 405, not an operation's answer.
      if (matches.length === 0) return;
      if (matches.some((template) => template.statuses.has(status))) return;
      findings.add(`${verb} ${matches.map((template) => template.path).join(" | ")} -> ${status}`);
    },
    findings: () => [...findings].sort(),
  };
}
