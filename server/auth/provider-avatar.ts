import { db } from "@/server/db";
import { AVATAR_URL_MAX } from "@/server/limits";

/**
 * The picture a sign-in provider's profile names (GitHub's `avatar_url`, OpenID's `picture`) when
 * it is an http(s) URL of bounded length, else null: the browser loads it, so nothing else may pass.
 */
export function providerAvatarUrl(profile: Record<string, unknown> | undefined): string | null {
  const value = profile?.avatar_url ?? profile?.picture;
  if (typeof value !== "string" || value.length > AVATAR_URL_MAX || !URL.canParse(value)) return null;
  const url = new URL(value);
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password) return null;
  return url.href.length > AVATAR_URL_MAX ? null : url.href;
}

/** Keeps, at each sign-in through a provider, the picture of its profile (or forgets one it no longer has). */
export async function keepProviderAvatar(userId: string, profile: Record<string, unknown> | undefined) {
  await (await db()).user.updateMany({ where: { id: userId }, data: { avatarUrl: providerAvatarUrl(profile) } });
}
