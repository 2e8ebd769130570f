import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { ConfigError, validateConfig } from "@/server/config";
import { createTestAgent, createTestProject, type TestUser } from "@/server/issues/test-fixtures";
import { useTestEnvironment } from "@/tests/support/harness";
import { call } from "@/tests/support/http";
import { withEnv } from "@/tests/support/env";
import { createTestUser } from "@/tests/support/users";
import { openSecret } from "./keyring";
import { rekeySecrets } from "./rekey";
import { redactValues } from "./redact";
import { secretValues } from "./service";

const KEY = crypto.randomBytes(32).toString("base64");
useTestEnvironment({ DEPLOY_SECRET_KEY: KEY });

let owner: TestUser;
let admin: TestUser;
let writer: TestUser;
let stranger: TestUser;
let agent: { id: string; token: string };
let project: Awaited<ReturnType<typeof createTestProject>>;
let publicProject: Awaited<ReturnType<typeof createTestProject>>;

beforeAll(async () => {
  [owner, admin, writer, stranger] = [
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
    await createTestUser(),
  ];
  project = await createTestProject(owner, {
    collaborators: [
      { user: admin, role: "admin" },
      { user: writer, role: "write" },
    ],
  });
  publicProject = await createTestProject(owner, { visibility: "public" });
  agent = await createTestAgent(owner);
});

const put = (token: string | undefined, name: string, value: unknown, base = project.base) =>
  call("PUT", `${base}/secrets/${name}`, { token, body: { value } });

describe("secret routes", () => {
  it("creates (201), replaces (200), lists metadata and never answers a value", async () => {
    const created = await put(admin.token, "DEPLOY_TOKEN", "s3cr3t-value-one");
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatchObject({
      name: "DEPLOY_TOKEN",
      createdBy: `user:${admin.id}`,
      updatedBy: `user:${admin.id}`,
    });
    const replaced = await put(owner.token, "DEPLOY_TOKEN", "s3cr3t-value-two");
    expect(replaced.status).toBe(200);
    expect(replaced.body.secret).toMatchObject({ createdBy: `user:${admin.id}`, updatedBy: `user:${owner.id}` });
    const listed = await call("GET", `${project.base}/secrets`, { token: admin.token });
    expect(listed.status).toBe(200);
    expect(listed.body.secrets.map((s: { name: string }) => s.name)).toContain("DEPLOY_TOKEN");
    expect(Object.keys(listed.body.secrets[0]).sort()).toEqual([
      "createdAt",
      "createdBy",
      "name",
      "updatedAt",
      "updatedBy",
    ]);
    for (const res of [created, replaced, listed]) expect(res.text).not.toContain("s3cr3t");
    const { values } = await secretValues(project.id, ["DEPLOY_TOKEN"]);
    expect(values.DEPLOY_TOKEN).toBe("s3cr3t-value-two");
  });

  it("audits writes and deletes without the value", async () => {
    await put(admin.token, "AUDITED", "audit-me-not");
    expect((await call("DELETE", `${project.base}/secrets/AUDITED`, { token: admin.token })).body).toEqual({
      deleted: true,
      name: "AUDITED",
    });
    const rows = await (
      await db()
    ).auditLog.findMany({ where: { projectId: project.id, target: "AUDITED" }, orderBy: { createdAt: "asc" } });
    expect(rows.map((row) => row.action)).toEqual(["secret.written", "secret.deleted"]);
    expect(JSON.stringify(rows, (_key, value) => (typeof value === "bigint" ? String(value) : value))).not.toContain(
      "audit-me-not",
    );
  });

  it("refuses anonymous callers (401), agents and non-admins (403), and hides private projects (404)", async () => {
    for (const [token, status] of [
      [undefined, 401],
      [agent.token, 403],
      [writer.token, 403],
      [stranger.token, 404],
    ] as const) {
      expect((await call("GET", `${project.base}/secrets`, { token })).status).toBe(status);
      expect((await put(token, "X", "v")).status).toBe(status);
      expect((await call("DELETE", `${project.base}/secrets/X`, { token })).status).toBe(status);
    }
    expect((await call("GET", `${publicProject.base}/secrets`, {})).status).toBe(401);
    expect((await call("GET", `${publicProject.base}/secrets`, { token: stranger.token })).status).toBe(403);
  });

  it("validates names and values (400) and answers 404 for an unknown name", async () => {
    for (const name of ["lower", "1ABC", "A-B", `A${"B".repeat(64)}`])
      expect((await put(admin.token, name, "v")).status).toBe(400);
    expect((await put(admin.token, "BIG", "x".repeat(4097))).status).toBe(400);
    expect((await put(admin.token, "WIDE", "é".repeat(2049))).status).toBe(400);
    expect((await put(admin.token, "EXACT", "x".repeat(4096))).status).toBe(201);
    expect((await put(admin.token, "NUMBER", 5)).status).toBe(400);
    const gone = await call("DELETE", `${project.base}/secrets/NEVER_WAS`, { token: admin.token });
    expect(gone.status).toBe(404);
  });

  it("answers 500 DEPLOY_SECRET_KEY_MISSING without a key", async () => {
    await withEnv({ DEPLOY_SECRET_KEY: undefined }, async () => {
      const res = await put(admin.token, "NO_KEY", "v");
      expect(res.status).toBe(500);
      expect(res.body.code).toBe("DEPLOY_SECRET_KEY_MISSING");
    });
  });

  it("serves form callers with redirects to the settings page, with ?error= on failure", async () => {
    const page = `/@${project.namespace}/${project.slug}/settings/secrets`;
    const created = await call("POST", `${project.base}/secrets`, {
      token: admin.token,
      form: { name: "FORM_SECRET", value: "from-a-form" },
    });
    expect(created.status).toBe(302);
    expect(created.headers.get("location")).toBe(page);
    const bad = await call("POST", `${project.base}/secrets`, {
      token: admin.token,
      form: { name: "bad name", value: "x" },
    });
    expect([bad.status, bad.headers.get("location")]).toEqual([302, `${page}?error=VALIDATION_ERROR`]);
    const json = await call("POST", `${project.base}/secrets`, {
      token: admin.token,
      body: { name: "JSON_SECRET", value: "v" },
    });
    expect(json.status).toBe(201);
    expect(
      (await call("POST", `${project.base}/secrets`, { token: admin.token, body: { name: "JSON_SECRET", value: "w" } }))
        .status,
    ).toBe(200);
    for (let i = 0; i < 2; i++) {
      const deleted = await call("POST", `${project.base}/secrets/FORM_SECRET/delete`, {
        token: admin.token,
        form: {},
      });
      expect([deleted.status, deleted.headers.get("location")]).toEqual([302, page]);
    }
    expect((await call("POST", `${project.base}/secrets/FORM_SECRET/delete`, { token: admin.token })).status).toBe(404);
  });

  it("keeps one row when two writers race on one name", async () => {
    const results = await Promise.all([put(admin.token, "RACED", "a-value"), put(owner.token, "RACED", "b-value")]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 201]);
    expect(await (await db()).projectSecret.count({ where: { projectId: project.id, name: "RACED" } })).toBe(1);
  });
});

describe("encryption at rest", () => {
  it("stores no value in clear, and a ciphertext moved to another project or name does not open", async () => {
    await put(admin.token, "MOVABLE", "moving-target-value");
    const prisma = await db();
    const row = await prisma.projectSecret.findFirstOrThrow({ where: { projectId: project.id, name: "MOVABLE" } });
    expect(row.sealed).not.toContain("moving-target-value");
    expect(openSecret(row)).toBe("moving-target-value");
    expect(openSecret({ ...row, projectId: publicProject.id })).toBeNull();
    expect(openSecret({ ...row, name: "OTHER" })).toBeNull();
    await prisma.projectSecret.create({
      data: {
        projectId: publicProject.id,
        name: "MOVABLE",
        keyId: row.keyId,
        sealed: row.sealed,
        createdBy: "x",
        updatedBy: "x",
      },
    });
    const moved = await secretValues(publicProject.id, ["MOVABLE"]);
    expect(moved).toEqual({ values: {}, missing: ["MOVABLE"] });
  });

  it("rotates: the previous key still reads, secrets:rekey moves every row to the current key", async () => {
    await put(admin.token, "ROTATED", "rotate-me");
    const next = crypto.randomBytes(32).toString("base64");
    await withEnv({ DEPLOY_SECRET_KEY: next }, async () => {
      expect((await secretValues(project.id, ["ROTATED"])).missing).toEqual(["ROTATED"]);
    });
    await withEnv({ DEPLOY_SECRET_KEY: next, DEPLOY_SECRET_KEY_PREVIOUS: KEY }, async () => {
      expect((await secretValues(project.id, ["ROTATED"])).values.ROTATED).toBe("rotate-me");
      const result = await rekeySecrets();
      expect(result.rekeyed).toBeGreaterThan(0);
      // The row copied to another project in the test above opens with no key: counted, left alone.
      expect(await rekeySecrets()).toEqual({ rekeyed: 0, unreadable: 1 });
    });
    await withEnv({ DEPLOY_SECRET_KEY: next, DEPLOY_SECRET_KEY_PREVIOUS: undefined }, async () => {
      expect((await secretValues(project.id, ["ROTATED"])).values.ROTATED).toBe("rotate-me");
    });
    await withEnv({ DEPLOY_SECRET_KEY: KEY }, async () => {
      expect((await secretValues(project.id, ["ROTATED"])).missing).toEqual(["ROTATED"]);
    });
  });

  it("refuses a key that is not 32 bytes of base64 at start-up", async () => {
    for (const bad of [
      crypto.randomBytes(16).toString("base64"),
      crypto.randomBytes(33).toString("base64"),
      "not base64 at all!",
    ]) {
      await withEnv({ DEPLOY_SECRET_KEY: bad }, async () => expect(() => validateConfig()).toThrow(ConfigError));
      await withEnv({ DEPLOY_SECRET_KEY_PREVIOUS: bad }, async () =>
        expect(() => validateConfig()).toThrow(/DEPLOY_SECRET_KEY_PREVIOUS/),
      );
    }
  });
});

describe("redaction", () => {
  it("replaces values and their base64 forms, longest first", () => {
    const value = "p@ss?word>>";
    const b64 = Buffer.from(value).toString("base64");
    const b64url = Buffer.from(value).toString("base64url");
    expect(redactValues(`a ${value} b ${b64} c ${b64url} d p@ss`, [value, "p@ss"])).toBe("a *** b *** c *** d ***");
    expect(redactValues("nothing here", [""])).toBe("nothing here");
  });
});
