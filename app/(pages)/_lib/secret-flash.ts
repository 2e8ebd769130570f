import "server-only";
import { headers } from "next/headers";
import { NextResponse } from "next/server";
import type { Identity } from "@/server/auth";
import { config } from "@/server/config";
import { seal, unseal } from "@/server/keys";
import { FLASH_COOKIE, FLASH_HEADER } from "./flash-cookie";

/** Seconds a flash lives if the page it is meant for is never loaded. */
const FLASH_SECONDS = 60;

export interface SecretFlash {
  /** What was created, e.g. "Token ci". */
  label: string;
  secret: string;
}

/**
 * Post/Redirect/Get for a create form whose answer carries a secret: a 303 to `page` with the
 * secret sealed in a short-lived HttpOnly cookie scoped to that page and bound to the user, so a
 * reload shows the list, never re-posts, and the secret sits in no URL or history entry.
 */
export function redirectWithSecret(page: string, userId: string, flash: SecretFlash): NextResponse {
  const response = new NextResponse(null, { status: 303, headers: { location: page } });
  response.cookies.set(FLASH_COOKIE, seal("page-flash", JSON.stringify({ userId, ...flash })), {
    httpOnly: true,
    sameSite: "strict",
    secure: config.baseUrl.startsWith("https://"),
    path: page,
    maxAge: FLASH_SECONDS,
  });
  return response;
}

/** A refused create form: back to the page with the API's message (the Flash component shows it). */
export function redirectWithRefusal(page: string, error: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location: `${page}?${new URLSearchParams({ error })}` } });
}

/** The secret flashed to this page for this user, if any (unreadable or someone else's: none). */
export async function readSecretFlash(viewer: Identity): Promise<SecretFlash | null> {
  const sealed = (await headers()).get(FLASH_HEADER);
  if (!sealed || viewer.kind !== "user") return null;
  try {
    const flash = JSON.parse(unseal("page-flash", sealed)) as SecretFlash & { userId: string };
    return flash.userId === viewer.userId ? { label: flash.label, secret: flash.secret } : null;
  } catch {
    return null;
  }
}
