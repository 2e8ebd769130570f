import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { baseURL, createUser, screenshot, signIn } from "./support";

// An MCP client's OAuth flow as a person lives it in Chromium: the client registers a loopback
// redirect URI (a real server on 127.0.0.1), the user signs in, sees the consent page styled, clicks
// Allow, and the browser lands on the client with `code` and `state`; the client then trades the
// code for a token that /mcp admits. Chromium enforces the consent page's CSP (form-action covers
// the redirect after the form), which clients that ignore CSP never exercised.

interface Landing {
  code: string | null;
  state: string | null;
}

/** The MCP client's loopback receiver: answers a small page and remembers what it was sent. */
async function loopbackReceiver(): Promise<{
  redirectUri: string;
  landed: Promise<Landing>;
  close: () => Promise<void>;
}> {
  let resolve!: (landing: Landing) => void;
  const landed = new Promise<Landing>((done) => (resolve = done));
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    resolve({ code: url.searchParams.get("code"), state: url.searchParams.get("state") });
    res
      .writeHead(200, { "content-type": "text/html" })
      .end("<!doctype html><title>Done</title><p>You can close this window.</p>");
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    landed,
    close: () => new Promise((closed) => server.close(() => closed())),
  };
}

test("an MCP client gets a grant through the consent page in Chromium and calls /mcp with it", async ({ page }) => {
  await createUser("oauthie");
  const receiver = await loopbackReceiver();
  try {
    const registered = await fetch(`${baseURL}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "Loopback agent",
        redirect_uris: [receiver.redirectUri],
        token_endpoint_auth_method: "none",
      }),
    });
    expect(registered.status).toBe(201);
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = crypto.randomBytes(32).toString("base64url");
    const challenge = crypto.createHash("sha256").update(verifier).digest("base64url");
    const state = crypto.randomBytes(8).toString("hex");

    await signIn(page, "oauthie");
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
    });
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: receiver.redirectUri,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state,
      scope: "read",
    });
    const consent = await page.goto(`/oauth/authorize?${query}`);
    expect(consent!.status()).toBe(200);
    const policy = consent!.headers()["content-security-policy"];
    expect(policy).toContain(`form-action 'self' ${new URL(receiver.redirectUri).origin}`);
    await expect(page.getByRole("heading", { name: "Authorize Loopback agent" })).toBeVisible();
    // The page's inline style applies: the Allow button is green, the body is centred.
    await expect(page.getByRole("button", { name: "Allow" })).toHaveCSS("background-color", "rgb(31, 136, 61)");
    await screenshot(page, "oauth-consent");

    await page.getByRole("button", { name: "Allow" }).click();
    const landing = await receiver.landed;
    await expect(page).toHaveURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    await expect(page.getByText("You can close this window.")).toBeVisible();
    expect(landing.state).toBe(state);
    expect(landing.code).toBeTruthy();
    expect(violations).toEqual([]);

    const tokenResponse = await fetch(`${baseURL}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: landing.code!,
        code_verifier: verifier,
        redirect_uri: receiver.redirectUri,
        client_id: clientId,
      }),
    });
    expect(tokenResponse.status).toBe(200);
    const tokens = (await tokenResponse.json()) as { access_token: string; scope: string };
    expect(tokens.scope).toBe("read");

    const mcp = await fetch(`${baseURL}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(mcp.status).toBe(200);
    const tools = ((await mcp.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map(
      (tool) => tool.name,
    );
    expect(tools).toContain("list_projects");
  } finally {
    await receiver.close();
  }
});
