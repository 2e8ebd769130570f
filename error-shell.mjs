// A page whose server render fails, or that finds nothing to show (notFound()), is answered by
// Next.js with an "error shell": an empty <body> that the browser's JavaScript fills with
// app/error.tsx or app/not-found.tsx in the site's layout. Without JavaScript that is a blank page
// (no lang, no <main>), and with it a 404 even keeps the page's own title ("@nobody · svc-forge",
// from its generateMetadata, in the shell's payload). So server.mjs amends the shell: `lang`, the
// same page in a <noscript>, and for a 404 the payload's title made "Not found · svc-forge". Only 500
// and 404 HTML answers are held (whole, then sent at once); everything else streams as Next.js
// writes it. Next.js compresses below this hook, so the held shell is decoded, amended and encoded
// again with the same coding.
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

/** app/not-found.tsx, for browsers without JavaScript. */
const NOT_FOUND_PAGE =
  '<noscript><link rel="stylesheet" href="/style.css"/><main id="content"><div class="status-page"><p class="status-code" aria-hidden="true">404</p><h1>Not found</h1>' +
  '<p>There is nothing here, or you cannot see it.</p><p><a href="/">Home</a> · <a href="/login">Sign in</a></p></div></main></noscript>';

const NOT_FOUND_TITLE = "Not found · svc-forge";

// The title element in the shell's inline payload (JSON within a script's string: quotes escaped).
const PAYLOAD_TITLE = /(\\"title\\",(?:null|\\"[^\\"]*\\"),\{\\"children\\":\\")(.*?)(\\"\})/g;

/**
 * A 500 or 404 shell with `lang` and its page for browsers without JavaScript before </body>; a 404's
 * titles (the shell's and its payload's) say "Not found". Any other body is answered unchanged.
 */
export function amendShell(html, status = 500) {
  if (!html.includes(SHELL) || !html.includes("</body>")) return html;
  const shell = html.replace(SHELL, `<html id="__next_error__" lang="en">`);
  if (status !== 404) return shell.replace("</body>", `${noScriptPage(html)}</body>`);
  return shell
    .replace(/<title>[^<]*<\/title>/, `<title>${NOT_FOUND_TITLE}</title>`)
    .replace(PAYLOAD_TITLE, (_, before, _title, after) => `${before}${NOT_FOUND_TITLE}${after}`)
    .replace("</body>", `${NOT_FOUND_PAGE}</body>`);
}

/** Holds a 500 or 404 HTML answer to `req` and sends it amended (see amendShell). */
export function amendErrorShell(req, res) {
  if (req.method !== "GET") return;
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  let held = null;
  const holding = () => {
    if (held === null)
      held =
        (res.statusCode === 500 || res.statusCode === 404) &&
        /text\/html/.test(String(res.getHeader("content-type") ?? ""))
          ? []
          : false;
    return held !== false;
  };
  const hold = (chunk, encoding) => {
    if (chunk != null && typeof chunk !== "function")
      held.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, typeof encoding === "string" ? encoding : "utf8"));
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
