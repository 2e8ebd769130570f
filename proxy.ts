import { NextResponse, type NextRequest } from "next/server";
import { FLASH_COOKIE, FLASH_HEADER } from "./app/(pages)/_lib/flash-cookie";

/**
 * A fresh nonce per page view and a Content-Security-Policy allowing only scripts that carry it
 * (Next.js puts it on its own scripts when the request has this header), so an injected <script>
 * never runs. Pages only: the API, git and static files have no scripts to allow.
 */
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  requestHeaders.set("Content-Security-Policy", policy);
  // The page reads a one-time flash from this header: expiring the cookie below hides it from the page's cookies.
  requestHeaders.delete(FLASH_HEADER);
  const flash = request.cookies.get(FLASH_COOKIE)?.value;
  if (flash) requestHeaders.set(FLASH_HEADER, flash);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("Content-Security-Policy", policy);
  if (flash) response.cookies.set(FLASH_COOKIE, "", { path: request.nextUrl.pathname, maxAge: 0, httpOnly: true, sameSite: "strict" });
  return response;
}

export const config = {
  matcher: [
    {
      source: "/((?!api/|_next/static|_next/image|health|style\\.css|favicon\\.ico|git-http/|@[^/]+/[^/]+\\.git/|@[^/]+/[^/]+/workspaces/[^/]+\\.git/).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
