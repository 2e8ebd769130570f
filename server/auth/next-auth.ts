import NextAuth, { type NextAuthConfig } from "next-auth";
import GitHub from "next-auth/providers/github";
import type { NextRequest } from "next/server";
import { config } from "@/server/config";
import { notFound, notImplemented } from "@/server/errors";
import { errorResponse } from "@/server/http";
import { authAdapter } from "./adapter";
import { keepProviderAvatar } from "./provider-avatar";
import { authSecret } from "./secret";
import { SESSION_COOKIE, SESSION_MAX_AGE_SECONDS, sessionCookieOptions } from "./session-cookie";

export const AUTH_BASE_PATH = "/api/auth";

/** Sign-in providers this instance knows, each present only when configured. */
const SIGN_IN_PROVIDERS = {
  github: () =>
    config.githubClientId && config.githubClientSecret
      ? GitHub({
          clientId: config.githubClientId,
          clientSecret: config.githubClientSecret,
          ...(config.githubEnterpriseUrl ? { enterprise: { baseUrl: config.githubEnterpriseUrl } } : {}),
          // The GitHub login becomes the username (namespace) of a new user.
          profile: (profile) => ({
            id: String(profile.id),
            name: profile.login,
            email: profile.email,
            image: profile.avatar_url,
          }),
        })
      : undefined,
};

type ProviderId = keyof typeof SIGN_IN_PROVIDERS;
const isKnownProvider = (id: string): id is ProviderId => Object.hasOwn(SIGN_IN_PROVIDERS, id);

function configuredProviders() {
  return Object.values(SIGN_IN_PROVIDERS).flatMap((make) => make() ?? []);
}

/** Database sessions in the Session table; the cookie svc_session holds the session token. */
async function authConfig(): Promise<NextAuthConfig> {
  return {
    adapter: await authAdapter(),
    secret: authSecret(),
    basePath: AUTH_BASE_PATH,
    trustHost: true,
    session: { strategy: "database", maxAge: SESSION_MAX_AGE_SECONDS },
    cookies: { sessionToken: { name: SESSION_COOKIE, options: sessionCookieOptions() } },
    providers: configuredProviders(),
    events: {
      signIn: async ({ user, profile }) => {
        if (user.id && profile) await keepProviderAvatar(user.id, profile);
      },
    },
  };
}

const holder = globalThis as unknown as { __svcNextAuth?: ReturnType<typeof NextAuth> };
const nextAuth = () => (holder.__svcNextAuth ??= NextAuth(authConfig));

/**
 * Auth.js's own routes under /api/auth (sign-in, callback, sign-out, session, csrf). Sign-in or a
 * callback through a provider this instance has not configured answers 501; an unknown one 404.
 */
export async function handleAuthRequest(req: Request): Promise<Response> {
  const match = new URL(req.url).pathname.match(/^\/api\/auth\/(?:signin|callback)\/([^/]+)\/?$/);
  if (match) {
    const id = decodeURIComponent(match[1]);
    if (!isKnownProvider(id)) return errorResponse(notFound("Unknown sign-in provider"));
    if (!SIGN_IN_PROVIDERS[id]()) {
      return errorResponse(notImplemented(`Sign-in with ${id} is not configured on this instance`));
    }
  }
  const { handlers } = nextAuth();
  return req.method === "POST" ? handlers.POST(req as NextRequest) : handlers.GET(req as NextRequest);
}
