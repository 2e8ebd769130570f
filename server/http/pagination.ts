/**
 * One pagination convention for every list (docs/api.md, "Lists"): an RFC 8288 Link header with
 * rel="first", "prev", "next" and "last" where each is knowable, X-Total-Count where counting is
 * cheap, and a `before` cursor where the list is unbounded.
 */

function pageUrl(requestUrl: string, baseUrl: string, set: Record<string, string | undefined>): string {
  const url = new URL(requestUrl);
  const target = new URL(url.pathname + url.search, baseUrl);
  for (const [name, value] of Object.entries(set)) {
    if (value === undefined) target.searchParams.delete(name);
    else target.searchParams.set(name, value);
  }
  return target.toString();
}

const linkHeader = (links: Array<[rel: string, url: string]>): Record<string, string> => ({
  Link: links.map(([rel, url]) => `<${url}>; rel="${rel}"`).join(", "),
});

/** A page of a limit/offset list whose total is known: X-Total-Count and all four links that apply. */
export function paginationHeaders(
  requestUrl: string,
  baseUrl: string,
  page: { total: number; limit: number; offset: number },
): Record<string, string> {
  const { total, limit, offset } = page;
  const at = (to: number) => pageUrl(requestUrl, baseUrl, { limit: String(limit), offset: String(to) });
  const lastOffset = total > 0 ? Math.floor((total - 1) / limit) * limit : 0;
  const links: Array<[string, string]> = [["first", at(0)]];
  if (offset > 0) links.push(["prev", at(Math.max(0, Math.min(offset - limit, lastOffset)))]);
  if (offset + limit < total) links.push(["next", at(offset + limit)]);
  links.push(["last", at(lastOffset)]);
  return { "X-Total-Count": String(total), ...linkHeader(links) };
}

/**
 * A page of an unbounded list read newest first by a `before` cursor: rel="first" (no cursor), and
 * rel="next" (before the page's last item) while the page is full. No total, no last: counting the
 * whole list is what the cursor avoids.
 */
export function cursorHeaders(
  requestUrl: string,
  baseUrl: string,
  page: { limit: number; count: number; nextBefore?: string },
): Record<string, string> {
  const links: Array<[string, string]> = [
    ["first", pageUrl(requestUrl, baseUrl, { limit: String(page.limit), before: undefined })],
  ];
  if (page.count >= page.limit && page.nextBefore !== undefined)
    links.push(["next", pageUrl(requestUrl, baseUrl, { limit: String(page.limit), before: page.nextBefore })]);
  return linkHeader(links);
}
