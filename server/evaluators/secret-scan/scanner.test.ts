import { describe, expect, it } from "vitest";
import { addedText, scanFiles } from "./scanner";

// Fake credentials, assembled at run time so this file never holds a literal secret.
const fake = {
  aws: "AKIA" + "QWERTYUIOPASDFGH",
  awsSecret: "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "4Z9kQ2mN7v",
  github: "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY2z4A",
  svcUser: "svc_user_" + "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2Rl",
  svcAgent: "svc_agent_" + "cXV4MTIzNDU2Nzg5MGFiY2RlZm9vYmFyYmF6",
  slack: "xoxb-" + "1234567890-abcdefghijklmn",
  stripe: "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
  gcp: "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY",
  jwt: "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
  pem: "-----BEGIN RSA " + "PRIVATE KEY-----",
  generic: "Xk29fLq81ZpR7vTw3MnB",
};

const added = (path: string, newText: string, oldText: string | null = null) => ({ path, newText, oldText });

describe("secret scan", () => {
  it.each([
    ["aws-access-key-id", `const id = "${fake.aws}";`],
    ["aws-secret-access-key", `aws_secret_access_key = ${fake.awsSecret}`],
    ["github-token", `token: ${fake.github}`],
    ["svc-token", `SVC=${fake.svcUser}`],
    ["svc-token", `Authorization: Bearer ${fake.svcAgent}`],
    ["slack-token", `slack = "${fake.slack}"`],
    ["stripe-key", `stripe.key(${fake.stripe})`],
    ["gcp-api-key", `key=${fake.gcp}`],
    ["jwt", `header ${fake.jwt}`],
    ["private-key", `${fake.pem}\nMIIEow...\n`],
    ["generic-secret", `DB_PASSWORD = "${fake.generic}"`],
    ["url-credentials", `url: postgres://app:${fake.generic}@db.internal:5432/app`],
  ])("finds %s", (rule, text) => {
    const findings = scanFiles([added("src/config.ts", `// header\n${text}\n`)]);
    expect(findings.map((f) => f.rule)).toContain(rule);
    const finding = findings.find((f) => f.rule === rule)!;
    expect(finding.file).toBe("src/config.ts");
    expect(finding.line).toBe(2);
  });

  it("never echoes the secret", () => {
    const [finding] = scanFiles([added("a.env", `GITHUB_TOKEN=${fake.github}`)]);
    expect(JSON.stringify(finding)).not.toContain(fake.github);
    expect(finding.preview).toMatch(/^ghp_… \(40 chars\)$/);
  });

  it("ignores placeholders, env lookups and low-entropy values", () => {
    const text = [
      'password = "changeme-changeme-1"',
      "api_key = process.env.API_KEY_VALUE_1234",
      'token = "xxxxxxxxxxxxxxxxxxxx"',
      'secret = "aaaaaaaaaaaaaaaaaaaa1"',
      "const auth = this.config.authentication;",
      'AWS_SECRET_ACCESS_KEY="<your-secret-access-key>"',
    ].join("\n");
    expect(scanFiles([added("src/a.ts", text)])).toEqual([]);
  });

  it("skips lockfiles, fixtures, policy allowPaths and inline allow markers", () => {
    const line = `key = "${fake.github}"`;
    expect(
      scanFiles([
        added("package-lock.json", line),
        added("web/yarn.lock", line),
        added("test/fixtures/creds.txt", line),
      ]),
    ).toEqual([]);
    expect(scanFiles([added("docs/sample.md", line)], { allowPaths: ["docs/**"] })).toEqual([]);
    expect(scanFiles([added("src/a.ts", `${line} // gitleaks:allow`)])).toEqual([]);
  });

  it("reports only lines the change adds, with their new line numbers", () => {
    const old = `a\n${fake.aws}\nb\n`;
    const next = `a\n${fake.aws}\nb\nc\nid=${fake.github}\n`;
    const findings = scanFiles([added("x.txt", next, old)]);
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ rule: "github-token", line: 5 });
  });

  it("skips binary content", () => {
    expect(scanFiles([added("img.bin", `\u0000\u0001${fake.github}`)])).toEqual([]);
  });

  it("computes added lines", () => {
    expect(addedText("a\nb", "a\nc\nb\nd")).toEqual({ text: "c\nd", lineNumbers: [2, 4] });
    expect(addedText(null, "x")).toEqual({ text: "x", lineNumbers: null });
  });
});
