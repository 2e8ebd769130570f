import { minidenticon } from "minidenticons";
import { db } from "@/server/db";
import { invalid } from "@/server/errors";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

// An hour: a person who signs in through the provider later sees their picture soon after.
const CACHE = "public, max-age=3600";

/**
 * A person's avatar: the picture of their sign-in provider's profile when they signed in through
 * one (a redirect: the browser loads it, this server never fetches it), else an identicon of their
 * name (the same picture wherever it shows, for anyone, so it reveals nothing). `segment` is the
 * URL's, still escaped; what is no username is a 400.
 */
export async function avatarResponse(segment: string): Promise<Response> {
  let name = "";
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A malformed escape is no username either.
  }
  if (!NAME.test(name)) throw invalid("Not a username", "VALIDATION_ERROR");
  const user = await (
    await db()
  ).user.findUnique({ where: { username: name }, select: { avatarUrl: true, isTombstone: true, deletingAt: true } });
  if (user?.avatarUrl && !user.isTombstone && !user.deletingAt)
    return new Response(null, { status: 302, headers: { Location: user.avatarUrl, "Cache-Control": CACHE } });
  return new Response(minidenticon(name, 70, 45), {
    headers: { "Content-Type": "image/svg+xml", "Cache-Control": CACHE },
  });
}
