/** X-Total-Count and an RFC 8288 Link header (rel="next"/"prev") for one page of a limit/offset list. */
export function paginationHeaders(requestUrl: string, baseUrl: string, page: { total: number; limit: number; offset: number }): Record<string, string> {
  const url = new URL(requestUrl);
  const linkTo = (offset: number) => {
    const target = new URL(url.pathname + url.search, baseUrl);
    target.searchParams.set("limit", String(page.limit));
    target.searchParams.set("offset", String(offset));
    return target.toString();
  };
  const links: string[] = [];
  if (page.offset + page.limit < page.total) links.push(`<${linkTo(page.offset + page.limit)}>; rel="next"`);
  if (page.offset > 0) links.push(`<${linkTo(Math.max(0, page.offset - page.limit))}>; rel="prev"`);
  return { "X-Total-Count": String(page.total), ...(links.length ? { Link: links.join(", ") } : {}) };
}
