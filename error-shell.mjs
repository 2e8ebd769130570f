// A page whose server render fails, or that finds nothing to show (notFound()), is answered by
// Next.js with an "error shell": an empty <body> (no lang, no <main>) that the browser's JavaScript
// fills with app/error.tsx or app/not-found.tsx; with JavaScript the not-found tree even keeps the
// page's own <title> ("@nobody · svc-forge"). So server.mjs amends what it sends: a 500 shell gets
// the same message in a <noscript>; a 404 shell is answered with the not-found page itself, whole
// and static (lang, the site's header and footer around one <main>, "Not found" as its title).
// Only 500 and 404 HTML answers are held (whole, then sent at once); everything else streams as
// Next.js writes it. Next.js compresses below this hook, so the held shell is decoded, amended and
// encoded again with the same coding.
import zlib from "node:zlib";

const SHELL = '<html id="__next_error__">';
const CODINGS = {
  gzip: [zlib.gunzipSync, zlib.gzipSync],
  deflate: [zlib.inflateSync, zlib.deflateSync],
  br: [zlib.brotliDecompressSync, zlib.brotliCompressSync],
};

/** The 500 page of app/error.tsx, for browsers without JavaScript; the error id when the shell carries one. */
function noScriptPage(shell) {
  // In the shell's inline payload, a JSON string within a script: `digest\":\"<id>\"`.
  const digest = /digest\\?":\\?"([\w-]{1,64})\\?"/.exec(shell)?.[1];
  return `<noscript><link rel="stylesheet" href="/style.css"/><main id="content"><div class="status-page"><p class="status-code" aria-hidden="true">500</p><h1>Something went wrong</h1><p>The server could not show this page. Try again in a moment.</p>${digest ? `<p class="muted">Error id <code>${digest}</code></p>` : ""}<p><a href="/">Home</a></p></div></main></noscript>`;
}

/** app/not-found.tsx in the layout of app/layout.tsx, as static HTML. */
const NOT_FOUND_PAGE =
  '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/><meta name="viewport" content="width=device-width, initial-scale=1"/>' +
  '<title>Not found · svc-forge</title><link rel="icon" href="/favicon.svg" type="image/svg+xml"/><link rel="stylesheet" href="/style.css"/></head>' +
  '<body><a class="skip" href="#content">Skip to content</a><header class="site"><nav aria-label="Site"><ul><li><a href="/">svc-forge</a></li></ul></nav></header>' +
  '<main id="content"><div class="status-page"><p class="status-code" aria-hidden="true">404</p><h1>Not found</h1><p>There is nothing here, or you cannot see it.</p>' +
  '<p><a href="/">Home</a> · <a href="/login">Sign in</a></p></div></main>' +
  '<footer class="site">svc-forge · <a href="/api/openapi.json">API description</a></footer></body></html>';

/**
 * A 404 shell: the not-found page; a 500 shell: the shell with `lang` and the no-JavaScript page
 * before </body>. Any other body is answered unchanged.
 */
export function amendShell(html, status = 500) {
  if (!html.includes(SHELL) || !html.includes("</body>")) return html;
  if (status === 404) return NOT_FOUND_PAGE;
  return html.replace(SHELL, `<html id="__next_error__" lang="en">`).replace("</body>", `${noScriptPage(html)}</body>`);
}

/** Holds a 500 or 404 HTML answer to `req` and sends it amended (see amendShell). */
export function amendErrorShell(req, res) {
  if (req.method !== "GET") return;
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  let held = null;
  const holding = () => {
    if (held === null) held = (res.statusCode === 500 || res.statusCode === 404) && /text\/html/.test(String(res.getHeader("content-type") ?? "")) ? [] : false;
    return held !== false;
  };
  const hold = (chunk, encoding) => {
    if (chunk != null && typeof chunk !== "function") held.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8"));
  };
  res.write = (chunk, encoding, callback) => {
    if (!holding()) return write(chunk, encoding, callback);
    hold(chunk, encoding);
    if (typeof encoding === "function") encoding();
    else if (typeof callback === "function") callback();
    return true;
  };
  res.end = (chunk, encoding, callback) => {
    if (!holding()) return end(chunk, encoding, callback);
    hold(chunk, encoding);
    const done = [chunk, encoding, callback].find((arg) => typeof arg === "function");
    return end(amended(Buffer.concat(held), res.getHeader("content-encoding"), res.statusCode), done);
  };
}

function amended(body, coding, status) {
  const [decode, encode] = CODINGS[String(coding ?? "").trim()] ?? [(bytes) => bytes, (bytes) => bytes];
  try {
    const html = decode(body).toString("utf8");
    const changed = amendShell(html, status);
    return changed === html ? body : encode(Buffer.from(changed, "utf8"));
  } catch {
    return body;
  }
}
