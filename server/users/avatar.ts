import { minidenticon } from "minidenticons";
import { invalid } from "@/server/errors";

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * A person's generated avatar: an identicon of their name (the same picture wherever it shows,
 * for anyone, so it reveals nothing and caches for a day). `segment` is the URL's, still escaped;
 * what is no username is a 400.
 */
export function avatarResponse(segment: string): Response {
  let name = "";
  try {
    name = decodeURIComponent(segment);
  } catch {
    // A malformed escape is no username either.
  }
  if (!NAME.test(name)) throw invalid("Not a username", "VALIDATION_ERROR");
  return new Response(minidenticon(name, 70, 45), {
    headers: { "Content-Type": "image/svg+xml", "Cache-Control": "public, max-age=86400" },
  });
}
