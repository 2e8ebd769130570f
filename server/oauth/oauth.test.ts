import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import {
  OAuthMetadataSchema,
  OAuthProtectedResourceMetadataSchema,
  type OAuthClientInformationMixed,
  type OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { useTestEnvironment } from "@/tests/support/harness";
import { call, TEST_ORIGIN } from "@/tests/support/http";
import { connectMcp } from "@/tests/support/mcp";
import { createTestSession } from "@/tests/support/sessions";
import { createTestUser } from "@/tests/support/users";
import { TOOLS } from "@/server/mcp";

useTestEnvironment();

const REDIRECT = "http://127.0.0.1:33418/callback";

let user: Awaited<ReturnType<typeof createTestUser>>;
let cookie: string;

beforeAll(async () => {
  user = await createTestUser();
  cookie = (await createTestSession(user.username)).cookie;
});

function pkce() {
  const verifier = crypto.randomBytes(32).toString("base64url");
  return { verifier, challenge: crypto.createHash("sha256").update(verifier).digest("base64url") };
}

async function register(body: Record<string, unknown> = {}) {
  const res = await call("POST", "/oauth/register", {
    body: { client_name: "test client", redirect_uris: [REDIRECT], ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.client_id as string;
}

const authorizeQuery = (clientId: string, challenge: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st4te",
    ...extra,
  });

/** The consent form's Allow (or Deny), posted from this site with the session. */
async function consent(
  query: URLSearchParams,
  decision: "allow" | "deny" = "allow",
  options: { origin?: string | null } = {},
) {
  return call("POST", "/oauth/authorize", {
    cookie,
    form: { ...Object.fromEntries(query), decision },
    origin: options.origin,
  });
}

const locationOf = (res: { headers: Headers }) => new URL(res.headers.get("location")!);

async function codeFor(clientId: string, challenge: string, scope = "read_write") {
  const res = await consent(authorizeQuery(clientId, challenge, { scope }));
  expect(res.status).toBe(302);
  return locationOf(res).searchParams.get("code")!;
}

const token = (form: Record<string, string>) => call("POST", "/oauth/token", { form });

async function grant(scope = "read_write") {
  const clientId = await register();
  const { verifier, challenge } = pkce();
  const code = await codeFor(clientId, challenge, scope);
  const res = await token({
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
    client_id: clientId,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { clientId, code, verifier, tokens: res.body as OAuthTokens };
}

/** Whether /mcp admits the access token (the SDK client lists tools). */
async function admitted(accessToken: string): Promise<boolean> {
  const res = await call("POST", "/mcp", {
    token: accessToken,
    body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    headers: { accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
  });
  return res.status === 200;
}

describe("discovery", () => {
  it("serves authorization-server and protected-resource metadata at the well-known URLs", async () => {
    const as = await call("GET", "/.well-known/oauth-authorization-server");
    expect(as.status).toBe(200);
    const metadata = OAuthMetadataSchema.parse(as.body);
    expect(metadata).toMatchObject({
      issuer: TEST_ORIGIN,
      authorization_endpoint: `${TEST_ORIGIN}/oauth/authorize`,
      token_endpoint: `${TEST_ORIGIN}/oauth/token`,
      registration_endpoint: `${TEST_ORIGIN}/oauth/register`,
      revocation_endpoint: `${TEST_ORIGIN}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
    });
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const pr = await call("GET", path);
      expect(OAuthProtectedResourceMetadataSchema.parse(pr.body)).toMatchObject({
        resource: `${TEST_ORIGIN}/mcp`,
        authorization_servers: [TEST_ORIGIN],
      });
    }
  });
});

describe("the SDK client connects with nothing but the URL", () => {
  it("discovers, registers, sends the user to consent, exchanges the code and calls tools", async () => {
    const state: {
      client?: OAuthClientInformationMixed;
      tokens?: OAuthTokens;
      codeVerifier: string;
      authorizationUrl?: URL;
    } = { codeVerifier: "" };
    const provider: OAuthClientProvider = {
      redirectUrl: REDIRECT,
      clientMetadata: {
        client_name: "sdk client",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
      clientInformation: () => state.client,
      saveClientInformation: (info) => void (state.client = info),
      tokens: () => state.tokens,
      saveTokens: (tokens) => void (state.tokens = tokens),
      redirectToAuthorization: (url) => void (state.authorizationUrl = url),
      saveCodeVerifier: (value) => void (state.codeVerifier = value),
      codeVerifier: () => state.codeVerifier,
    };
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const { fetchInProcess } = await import("@/tests/support/http");
    const transport = new StreamableHTTPClientTransport(new URL("/mcp", TEST_ORIGIN), {
      authProvider: provider,
      fetch: fetchInProcess,
    });
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    await expect(new Client({ name: "sdk", version: "1" }).connect(transport)).rejects.toThrow(UnauthorizedError);
    expect(state.client?.client_id).toMatch(/^svc_client_/);

    // The user's browser: the consent page, then Allow.
    const url = state.authorizationUrl!;
    expect(url.origin + url.pathname).toBe(`${TEST_ORIGIN}/oauth/authorize`);
    const page = await call("GET", url.pathname + url.search, { cookie });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:33418");
    expect(page.text).toContain('value="allow"');
    expect(page.text).toContain("sdk client");
    expect(page.text).toContain(user.username);
    const allowed = await consent(url.searchParams);
    expect(allowed.status).toBe(302);
    const back = locationOf(allowed);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe(url.searchParams.get("state"));
    expect(back.searchParams.get("iss")).toBe(TEST_ORIGIN);

    await transport.finishAuth(back.searchParams.get("code")!);
    expect(state.tokens?.access_token).toMatch(/^svc_oauth_/);
    const client = await connectMcp({ authProvider: provider });
    const { tools } = await client.listTools();
    const scope = state.tokens?.scope;
    expect(tools.length).toBe(scope === "read_write" ? TOOLS.length : TOOLS.filter((t) => t.readOnly).length);
    expect((await client.callTool({ name: "list_projects", arguments: {} })).isError).toBeFalsy();
    await client.close();

    const tokens = (await call("GET", "/api/users/me/tokens", { cookie })).body.tokens;
    expect(tokens).toContainEqual(
      expect.objectContaining({ kind: "oauth", name: "MCP: sdk client", status: "active" }),
    );
  });

  it("a read grant lists read-only tools only", async () => {
    const { tokens } = await grant("read");
    expect(tokens.scope).toBe("read");
    const client = await connectMcp({ token: tokens.access_token });
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(
      TOOLS.filter((t) => t.readOnly)
        .map((t) => t.name)
        .sort(),
    );
    await client.close();
  });
});

describe("registration", () => {
  it.each([
    [{ redirect_uris: ["http://evil.example/cb"] }, /loopback/],
    [{ redirect_uris: ["javascript:alert(1)"] }, /scheme|redirect/],
    [{ redirect_uris: ["https://app.example/cb#frag"] }, /fragment/],
    [{ redirect_uris: [] }, /redirect_uris/],
    [{ redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }, /grant_types/],
  ])("refuses %j", async (body, message) => {
    const res = await call("POST", "/oauth/register", { body: { client_name: "x", ...body } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("invalid_client_metadata");
    expect(res.body.error_description).toMatch(message);
  });

  it("registers public clients only, with what it stored", async () => {
    const res = await call("POST", "/oauth/register", {
      body: {
        client_name: "c",
        redirect_uris: ["https://app.example/cb", "myapp.example:/cb"],
        token_endpoint_auth_method: "client_secret_post",
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      token_endpoint_auth_method: "none",
      redirect_uris: ["https://app.example/cb", "myapp.example:/cb"],
    });
    expect(res.body.client_secret).toBeUndefined();
  });
});

describe("authorization endpoint", () => {
  it("never redirects to an unknown client or an unregistered redirect URI", async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const unknown = await call("GET", `/oauth/authorize?${authorizeQuery("svc_client_nope", challenge)}`, { cookie });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("location")).toBeNull();
    for (const redirect of [
      "http://127.0.0.1:33418/callback/",
      "http://127.0.0.1:33418/callback?x=1",
      "http://127.0.0.1:33419/callback",
    ]) {
      const res = await call(
        "GET",
        `/oauth/authorize?${authorizeQuery(clientId, challenge, { redirect_uri: redirect })}`,
        { cookie },
      );
      expect(res.status, redirect).toBe(400);
      expect(res.headers.get("location")).toBeNull();
    }
  });

  it("sends request errors back to the client's redirect URI with the state", async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const cases: Array<[Record<string, string>, string]> = [
      [{ code_challenge_method: "plain" }, "invalid_request"],
      [{ code_challenge: "" }, "invalid_request"],
      [{ response_type: "token" }, "unsupported_response_type"],
      [{ scope: "admin" }, "invalid_scope"],
    ];
    for (const [extra, error] of cases) {
      const res = await call("GET", `/oauth/authorize?${authorizeQuery(clientId, challenge, extra)}`, { cookie });
      expect(res.status, error).toBe(302);
      expect(Object.fromEntries(locationOf(res).searchParams)).toMatchObject({ error, state: "st4te" });
    }
  });

  it("asks a visitor without a session to sign in, and escapes what the client named", async () => {
    const clientId = await register({ client_name: '<script>alert("x")</script>' });
    const { challenge } = pkce();
    const anonymous = await call("GET", `/oauth/authorize?${authorizeQuery(clientId, challenge)}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toContain("/api/auth/signin?callbackUrl=");
    const page = await call("GET", `/oauth/authorize?${authorizeQuery(clientId, challenge)}`, { cookie });
    expect(page.text).not.toContain("<script>");
    expect(page.text).toContain("&#60;script&#62;");
  });

  it("Deny answers access_denied; a cross-site form post is refused", async () => {
    const clientId = await register();
    const { challenge } = pkce();
    const denied = await consent(authorizeQuery(clientId, challenge), "deny");
    expect(Object.fromEntries(locationOf(denied).searchParams)).toMatchObject({
      error: "access_denied",
      state: "st4te",
    });
    const forged = await consent(authorizeQuery(clientId, challenge), "allow", { origin: "http://evil.example" });
    expect(forged.status).toBe(403);
    expect(forged.headers.get("location")).toBeNull();
    const withoutOrigin = await consent(authorizeQuery(clientId, challenge), "allow", { origin: null });
    expect(withoutOrigin.status).toBe(403);
  });
});

describe("token endpoint", () => {
  it("a wrong verifier is refused and spends the code", async () => {
    const clientId = await register();
    const { verifier, challenge } = pkce();
    const code = await codeFor(clientId, challenge);
    const wrong = await token({
      grant_type: "authorization_code",
      code,
      code_verifier: pkce().verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    const right = await token({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(right.body.error).toBe("invalid_grant");
  });

  it("a reused code is refused and revokes the grant the first exchange issued", async () => {
    const { clientId, code, verifier, tokens } = await grant();
    expect(await admitted(tokens.access_token)).toBe(true);
    const again = await token({
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expect(await admitted(tokens.access_token)).toBe(false);
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: clientId,
    });
    expect(refreshed.body.error).toBe("invalid_grant");
  });

  it("refuses another client's code, a different redirect URI, an unknown client and other grant types", async () => {
    const clientId = await register();
    const other = await register();
    const { verifier, challenge } = pkce();
    const code = await codeFor(clientId, challenge);
    expect(
      (
        await token({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          redirect_uri: REDIRECT,
          client_id: other,
        })
      ).body.error,
    ).toBe("invalid_grant");
    const second = await codeFor(clientId, challenge);
    expect(
      (
        await token({
          grant_type: "authorization_code",
          code: second,
          code_verifier: verifier,
          redirect_uri: `${REDIRECT}x`,
          client_id: clientId,
        })
      ).body.error,
    ).toBe("invalid_grant");
    const unknown = await token({
      grant_type: "authorization_code",
      code: second,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: "nobody",
    });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe("invalid_client");
    // A NUL in the id is no client either (it never reaches the database, which would refuse it with a 500).
    const nul = await token({
      grant_type: "authorization_code",
      code: second,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: "a\u0000b",
    });
    expect(nul.status).toBe(401);
    const password = await token({ grant_type: "password", client_id: clientId });
    expect(password.body.error).toBe("unsupported_grant_type");
  });

  it("refresh rotates both tokens; the old access token dies; reusing a refresh token revokes the family", async () => {
    const { clientId, tokens } = await grant();
    const first = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: clientId,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    const rotated = first.body as OAuthTokens;
    expect(rotated.access_token).not.toBe(tokens.access_token);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(await admitted(tokens.access_token)).toBe(false);
    expect(await admitted(rotated.access_token)).toBe(true);
    const replay = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: clientId,
    });
    expect(replay.body.error).toBe("invalid_grant");
    expect(await admitted(rotated.access_token)).toBe(false);
    expect(
      (await token({ grant_type: "refresh_token", refresh_token: rotated.refresh_token!, client_id: clientId })).body
        .error,
    ).toBe("invalid_grant");
  });

  it("concurrent refreshes with one token: one rotates, the other is a reuse", async () => {
    const { clientId, tokens } = await grant();
    const both = await Promise.all(
      [1, 2].map(() =>
        token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token!, client_id: clientId }),
      ),
    );
    expect(both.map((res) => res.status).sort()).toEqual([200, 400]);
  });
});

describe("revocation and the grants' limits", () => {
  it("revoking the refresh token or the access token ends the grant; unknown tokens answer 200", async () => {
    for (const which of ["refresh_token", "access_token"] as const) {
      const { clientId, tokens } = await grant();
      const res = await call("POST", "/oauth/revoke", { form: { token: tokens[which]!, client_id: clientId } });
      expect(res.status).toBe(200);
      expect(await admitted(tokens.access_token)).toBe(false);
    }
    const clientId = await register();
    expect(
      (await call("POST", "/oauth/revoke", { form: { token: "svc_oauth_unknown", client_id: clientId } })).status,
    ).toBe(200);
  });

  it("another client cannot revoke a grant", async () => {
    const { tokens } = await grant();
    const other = await register();
    expect(
      (await call("POST", "/oauth/revoke", { form: { token: tokens.refresh_token!, client_id: other } })).status,
    ).toBe(200);
    expect(await admitted(tokens.access_token)).toBe(true);
  });

  it("a grant is refused on /api/admin/* even for an administrator", async () => {
    const admin = await createTestUser();
    const { db } = await import("@/server/db");
    await (await db()).user.update({ where: { id: admin.id }, data: { isAdmin: true } });
    cookie = (await createTestSession(admin.username)).cookie;
    const { tokens } = await grant();
    const res = await call("GET", "/api/admin/jobs", { token: tokens.access_token });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("ADMIN_REQUIRES_DIRECT_CREDENTIAL");
    expect((await call("GET", "/api/admin/jobs", { token: admin.token })).status).toBe(200);
  });
});
