import crypto from "node:crypto";
import { z } from "zod";
import { config } from "@/server/config";
import { conflict, forbidden, notFound } from "@/server/errors";
import { assertSameOrigin, errorResponse, formToObject, parseJsonBody, readBodyText } from "@/server/http";
import { JSON_BODY_BYTES_MAX } from "@/server/limits";
import { authAdapter } from "./adapter";
import { SESSION_COOKIE, SESSION_MAX_AGE_SECONDS, readCookie, sessionSetCookie } from "./session-cookie";
import { deleteSession } from "./session-store";
import { findOrCreateUser, publicUser, usernameSchema } from "./users";

/** Starts an Auth.js database session for a user and returns the cookie that carries it. */
export async function startSession(userId: string): Promise<string> {
  const sessionToken = crypto.randomBytes(32).toString("base64url");
  const expires = new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000);
  const adapter = await authAdapter();
  await adapter.createSession!({ sessionToken, userId, expires });
  return sessionSetCookie(sessionToken, expires);
}

/** POST /logout: ends the browser session (same-host Origin/Referer), clears the cookie, 303 to the home page. */
export async function handleLogout(req: Request): Promise<Response> {
  try {
    assertSameOrigin(req);
    const sessionToken = readCookie(req.headers.get("cookie"), SESSION_COOKIE);
    if (sessionToken) await deleteSession(sessionToken);
    const cleared = `${SESSION_COOKIE}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax`;
    return new Response(null, {
      status: 303,
      headers: { Location: "/", "Set-Cookie": cleared, "Cache-Control": "no-store" },
    });
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * POST /api/auth/dev-login {username} (DEV_LOGIN=1 only, else 404): creates the user if needed and
 * signs the browser in. Unauthenticated, so it must not be forgeable: same-host Origin/Referer.
 */
export async function handleDevLogin(req: Request): Promise<Response> {
  try {
    if (!config.devLogin) throw notFound();
    assertSameOrigin(req);
    const text = await readBodyText(req, JSON_BODY_BYTES_MAX);
    const isForm = (req.headers.get("content-type") ?? "").includes("application/x-www-form-urlencoded");
    const { username } = z
      .object({ username: usernameSchema() })
      .parse(isForm ? formToObject(text) : parseJsonBody(text));
    const user = await findOrCreateUser(username);
    if (user.deletingAt) throw conflict("This account is being deleted", "TARGET_DELETING");
    if (user.isTombstone) throw forbidden("This account cannot sign in");
    const cookie = await startSession(user.id);
    // A browser form lands on the home page, signed in (303: the follow-up is a GET).
    if (isForm)
      return new Response(null, {
        status: 303,
        headers: { Location: "/", "Set-Cookie": cookie, "Cache-Control": "no-store" },
      });
    return Response.json(
      { user: publicUser(user) },
      { headers: { "Set-Cookie": cookie, "Cache-Control": "no-store" } },
    );
  } catch (error) {
    return errorResponse(error);
  }
}
