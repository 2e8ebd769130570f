import { invalid } from "@/server/errors";

export const malformedUrl = () => invalid("The URL has malformed percent-encoding", "VALIDATION_ERROR");

/** Decodes one URL component; malformed percent-encoding or a NUL character is the client's error. */
function decodeUrlComponent(raw: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    throw malformedUrl();
  }
  if (decoded.includes("\u0000")) throw invalid("The URL must not contain the NUL character", "VALIDATION_ERROR");
  return decoded;
}

/** No route can use a path segment or query value that does not decode, so none reaches one. */
export function assertWellFormedUrl(url: URL): void {
  for (const segment of url.pathname.split("/")) decodeUrlComponent(segment);
  for (const pair of url.search.slice(1).split("&")) for (const part of pair.split("=")) decodeUrlComponent(part);
}
