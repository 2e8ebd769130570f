import { config } from "@/server/config";

export const SESSION_COOKIE = "svc_session";
/** Browser sessions last 30 days (Auth.js's default), renewed by Auth.js at most daily. */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

export function readCookie(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** Attributes of the svc_session cookie, shared by Auth.js and dev login. */
export function sessionCookieOptions() {
  return { httpOnly: true, sameSite: "lax" as const, path: "/", secure: config.baseUrl.startsWith("https://") };
}

export function sessionSetCookie(sessionToken: string, expires: Date): string {
  const options = sessionCookieOptions();
  return [
    `${SESSION_COOKIE}=${encodeURIComponent(sessionToken)}`,
    `Path=${options.path}`,
    `Expires=${expires.toUTCString()}`,
    "HttpOnly",
    "SameSite=Lax",
    ...(options.secure ? ["Secure"] : []),
  ].join("; ");
}
