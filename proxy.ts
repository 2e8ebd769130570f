import { NextResponse, type NextRequest } from "next/server";
import { config as settings } from "@/server/config";
import { assertSameOrigin, errorResponse, requestIdOf } from "@/server/http";
import { FLASH_COOKIE, FLASH_HEADER } from "./app/(pages)/_lib/flash-cookie";

/**
 * A server action posted from another site (a foreign or `null` Origin): Next.js's own check
 * throws, which would answer 500. It is the client's fault: the API's 403 CSRF.
 */
function refusedServerAction(request: NextRequest): Response | undefined {
  if (request.method !== "POST" || !request.headers.has("next-action")) return undefined;
  // A client that sends no Origin at all (not a browser) is left to Next.js, which lets it through
  // to the action, where the session's own CSRF check applies.
  if (!request.headers.has("origin")) return undefined;
  try {
    assertSameOrigin(request);
    return undefined;
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * Where avatars of people who signed in through the provider are loaded from (`/avatars/<name>`
 * redirects there): GitHub's picture host, or the GitHub Enterprise server's own origin.
 */
function avatarSources(): string {
  if (!settings.githubClientId) return "";
  return settings.githubEnterpriseUrl
    ? ` ${new URL(settings.githubEnterpriseUrl).origin}`
    : " https://avatars.githubusercontent.com";
}

/**
 * Every page view gets an X-Request-Id (a valid incoming one is echoed; the page's server code
 * reads it from the request header), a fresh nonce and a Content-Security-Policy allowing only
 * scripts that carry it (Next.js puts it on its own scripts when the request has this header), so
 * an injected <script> never runs. Pages only: the API, git, OAuth's consent page (which sends its
 * own policy) and static files are not matched.
 */
export function proxy(request: NextRequest) {
  const requestId = requestIdOf(request);
  const refused = refusedServerAction(request);
  if (refused) {
    refused.headers.set("X-Request-Id", requestId);
    return refused;
  }
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-request-id", requestId);
  const prefetch = request.headers.has("next-router-prefetch") || request.headers.get("purpose") === "prefetch";
  if (prefetch) {
    const response = NextResponse.next({ request: { headers: requestHeaders } });
    response.headers.set("X-Request-Id", requestId);
    return response;
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    `style-src 'self' 'nonce-${nonce}'`,
    `img-src 'self' data:${avatarSources()}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", policy);
  // The page reads a one-time flash from this header: expiring the cookie below hides it from the page's cookies.
  requestHeaders.delete(FLASH_HEADER);
  const flash = request.cookies.get(FLASH_COOKIE)?.value;
  if (flash) requestHeaders.set(FLASH_HEADER, flash);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  response.headers.set("X-Request-Id", requestId);
  if (flash)
    response.cookies.set(FLASH_COOKIE, "", {
      path: request.nextUrl.pathname,
      maxAge: 0,
      httpOnly: true,
      sameSite: "strict",
    });
  return response;
}

export const config = {
  // Prefetches are matched too (they render the page): they get a request id, and no policy.
  matcher: [
    "/((?!api/|oauth/|_next/static|_next/image|health|style\\.css|favicon\\.ico|git-http/|@[^/]+/[^/]+\\.git/|@[^/]+/[^/]+/workspaces/[^/]+\\.git/).*)",
  ],
};
