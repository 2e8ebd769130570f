import crypto from "node:crypto";
import type { AuthorizationRequest } from "./authorize";

const STYLE =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2328}" +
  "h1{font-size:1.4rem}.box{border:1px solid #d0d7de;border-radius:8px;padding:1rem 1.25rem}" +
  "button{font:inherit;padding:.5rem 1.25rem;margin-right:.5rem;border-radius:6px;border:1px solid #d0d7de;cursor:pointer}" +
  "button[value=allow]{background:#1f883d;color:#fff;border-color:#1f883d}code{word-break:break-all}";
const STYLE_HASH = `'sha256-${crypto.createHash("sha256").update(STYLE).digest("base64")}'`;

const SCOPE_TEXT = {
  read: "read the projects, files, changes and issues you can read",
  read_write:
    "read what you can read, and act as you where you can write: create workspaces, commit, open changes, comment, open and edit issues, review and merge",
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Where the form's redirect may go: the page's own origin, and the client's redirect URI (CSP form-action covers redirects). */
function formTargets(redirectUri: string): string {
  const url = new URL(redirectUri);
  const target = url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
  return `'self' ${target}`;
}

/** Headers of every page here: nothing runs, nothing embeds it, nothing is cached. */
export function pageHeaders(formAction = "'self'"): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": `default-src 'none'; style-src ${STYLE_HASH}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
    // Same-origin keeps the form's Origin header (no-referrer would make it "null" and fail CSRF).
    "Referrer-Policy": "same-origin",
  };
}

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function messagePage(title: string, message: string, link?: { href: string; text: string }): string {
  const action = link ? `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p>` : "";
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>${action}`);
}

/** The consent form: every field of the request travels back in the POST and is checked again there. */
export function consentPage(request: AuthorizationRequest, username: string): { html: string; formAction: string } {
  const fields: Record<string, string | undefined> = {
    response_type: "code",
    client_id: request.client.clientId,
    redirect_uri: request.redirectUri,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
    scope: request.scope,
    state: request.state,
  };
  const hidden = Object.entries(fields)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value!)}">`)
    .join("");
  const html = page(
    "Authorize access",
    `<h1>Authorize ${escapeHtml(request.client.name)}</h1><div class="box">` +
      `<p>Signed in as <strong>${escapeHtml(username)}</strong>.</p>` +
      `<p><strong>${escapeHtml(request.client.name)}</strong> asks for an MCP grant (scope <code>${request.scope}</code>) to ${SCOPE_TEXT[request.scope]}.</p>` +
      `<p>You will be sent back to <code>${escapeHtml(request.redirectUri)}</code>. The grant shows among your tokens, where you can revoke it.</p>` +
      `<form method="post" action="/oauth/authorize">${hidden}<button type="submit" name="decision" value="allow">Allow</button><button type="submit" name="decision" value="deny">Deny</button></form></div>`,
  );
  return { html, formAction: formTargets(request.redirectUri) };
}
