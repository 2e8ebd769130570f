// A page whose server render fails is answered by Next.js with a 500 "error shell": an empty
// <body> that the browser's JavaScript fills with app/error.tsx. Without JavaScript that is a blank
// page, so server.mjs adds the same message to the shell in a <noscript>. Only 500 HTML answers are
// held (whole, then sent at once); everything else streams as Next.js writes it. Next.js compresses
// below this hook, so the held shell is decoded, amended and encoded again with the same coding.
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

/** The shell with the no-JavaScript page before </body>, or the body unchanged when it is not a shell. */
export function withNoScriptPage(html) {
  if (!html.includes(SHELL) || !html.includes("</body>")) return html;
  return html.replace("</body>", `${noScriptPage(html)}</body>`);
}

/** Holds a 500 HTML answer to `req` and sends it with the no-JavaScript page added. */
export function amendErrorShell(req, res) {
  if (req.method !== "GET") return;
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  let held = null;
  const holding = () => {
    if (held === null) held = res.statusCode === 500 && /text\/html/.test(String(res.getHeader("content-type") ?? "")) ? [] : false;
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
    return end(amended(Buffer.concat(held), res.getHeader("content-encoding")), done);
  };
}

function amended(body, coding) {
  const [decode, encode] = CODINGS[String(coding ?? "").trim()] ?? [(bytes) => bytes, (bytes) => bytes];
  try {
    const html = decode(body).toString("utf8");
    const changed = withNoScriptPage(html);
    return changed === html ? body : encode(Buffer.from(changed, "utf8"));
  } catch {
    return body;
  }
}
