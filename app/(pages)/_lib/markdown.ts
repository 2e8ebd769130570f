import { Marked, type TokenizerAndRendererExtension, type Tokens } from "marked";
import sanitizeHtml from "sanitize-html";
import { highlightLines } from "./highlight";
import { headingSlugger } from "./slug";

/** Where a Markdown document is shown, so its references and relative paths point into the project. */
export interface MarkdownContext {
  /** The project's page address, `/@ns/slug`. */
  base: string;
  /** The file's ref and directory, for a document read from the repository (README, `.md` file). */
  ref?: string;
  dir?: string;
}

/** GitHub's prefix for ids from user content: a heading can never take an id the page itself uses. */
export const USER_CONTENT = "user-content-";

/** Images come only from here (the project's raw route): the pages load nothing from elsewhere. */
const RAW_ROUTE = "/api/projects/";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `#12` (an issue of the project), `!12` (a change of the project, as GitLab writes merge requests) and `@name` (a profile), outside links and code. */
function references(base: string | undefined): TokenizerAndRendererExtension {
  return {
    name: "reference",
    level: "inline",
    start: (src) => {
      const match = /(^|[^\w`&/])[#!@]\w/.exec(src);
      return match ? match.index + match[1].length : undefined;
    },
    tokenizer(src) {
      if (this.lexer.state.inLink) return undefined;
      const issue = base ? /^#(\d{1,9})\b/.exec(src) : null;
      if (issue) return { type: "reference", raw: issue[0], href: `${base}/issues/${issue[1]}` };
      const change = base ? /^!(\d{1,9})\b/.exec(src) : null;
      if (change) return { type: "reference", raw: change[0], href: `${base}/changes/${change[1]}` };
      const user = /^@([A-Za-z0-9][A-Za-z0-9_-]{0,38})(?![\w.-]*@)\b/.exec(src);
      if (user) return { type: "reference", raw: user[0], href: `/@${user[1]}` };
      return undefined;
    },
    renderer: (token) => `<a class="reference" href="${escapeHtml(token.href as string)}">${escapeHtml(token.raw)}</a>`,
  };
}

/** A path of the repository from a document's relative link, or null when it leaves the repository. */
function repositoryPath(dir: string, link: string): string | null {
  const parts = link.startsWith("/") ? [] : dir.split("/").filter(Boolean);
  for (const part of link.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

const isAbsolute = (url: string) => /^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//");

/** A link's target on this site: in-document anchors get the user-content prefix, relative paths the file view at the shown ref. */
function resolveLink(href: string, context?: MarkdownContext): string {
  if (href.startsWith("#")) return href.startsWith(`#${USER_CONTENT}`) ? href : `#${USER_CONTENT}${href.slice(1)}`;
  if (isAbsolute(href) || !context?.ref) return href;
  const [, pathPart = "", suffix = ""] = /^([^?#]*)(.*)$/.exec(href) ?? [];
  const path = repositoryPath(context.dir ?? "", decodeURIComponent(pathPart));
  if (path === null) return "#";
  const kind = pathPart.endsWith("/") || path === "" ? "tree" : "blob";
  const segments = path === "" ? [] : path.split("/").map(encodeURIComponent);
  const anchor =
    suffix.startsWith("#") && !suffix.startsWith(`#${USER_CONTENT}`) && !/^#L\d/.test(suffix)
      ? `#${USER_CONTENT}${suffix.slice(1)}`
      : suffix;
  return [`${context.base}/${kind}/${encodeURIComponent(context.ref)}`, ...segments].join("/") + anchor;
}

/** An image's source: a repository file through the raw route at the shown ref, else nothing (the page loads no outside images). */
function resolveImage(src: string, context?: MarkdownContext): string | null {
  if (isAbsolute(src) || !context?.ref) return null;
  const path = repositoryPath(context.dir ?? "", decodeURIComponent(src.split(/[?#]/, 1)[0]));
  if (!path) return null;
  const [namespace, slug] = context.base.slice(1).split("/");
  return `${RAW_ROUTE}${namespace}/${slug}/raw?${new URLSearchParams({ path, ref: context.ref })}`;
}

function markedFor(context?: MarkdownContext): Marked {
  const slugger = headingSlugger();
  return new Marked({
    gfm: true,
    async: false,
    extensions: [references(context?.base)],
    renderer: {
      heading({ tokens, depth }: Tokens.Heading) {
        const inner = this.parser.parseInline(tokens);
        const id = USER_CONTENT + slugger(inner.replace(/<[^>]*>/g, ""));
        return `<h${depth} id="${id}">${inner} <a class="anchor" href="#${id}" aria-label="Link to this section">#</a></h${depth}>\n`;
      },
      link({ href, title, tokens }: Tokens.Link) {
        const titled = title ? ` title="${escapeHtml(title)}"` : "";
        return `<a href="${escapeHtml(resolveLink(href, context))}"${titled}>${this.parser.parseInline(tokens)}</a>`;
      },
      image({ href, title, text }: Tokens.Image) {
        const src = resolveImage(href, context);
        if (!src) return escapeHtml(text);
        return `<img src="${escapeHtml(src)}" alt="${escapeHtml(text)}"${title ? ` title="${escapeHtml(title)}"` : ""}>`;
      },
      // A fenced block in a known language is coloured as the file views colour code (same classes).
      code({ text, lang }: Tokens.Code) {
        const language = (lang ?? "").split(/\s/, 1)[0];
        const lines = language ? highlightLines(`block.${language}`, text) : null;
        if (!lines) return false;
        const html = lines
          .map((line) =>
            line
              .map(({ text: piece, className }) =>
                className ? `<span class="${className}">${escapeHtml(piece)}</span>` : escapeHtml(piece),
              )
              .join(""),
          )
          .join("\n");
        return `<pre class="code"><code class="language-${escapeHtml(language)}">${html}</code></pre>\n`;
      },
      checkbox: ({ checked }: Tokens.Checkbox) =>
        `<input type="checkbox" disabled${checked ? " checked" : ""} aria-label="${checked ? "done" : "to do"}"> `,
    },
  });
}

const HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"];

/**
 * GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks, heading anchors, `#12`
 * and `@name`) to HTML that is safe to inject: marked renders (raw HTML passes through it), then
 * sanitize-html keeps an allow-list of tags and attributes, http(s)/mailto links, heading ids
 * under the user-content prefix, and images only from the project's raw route.
 */
export function renderMarkdown(source: string, context?: MarkdownContext): string {
  const html = markedFor(context).parse(source) as string;
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, "del", "img", "input"],
    allowedAttributes: {
      a: ["href", "title", "rel", "class", "aria-label"],
      img: ["src", "alt", "title", "width", "height"],
      input: ["type", "checked", "disabled", "aria-label"],
      code: ["class"],
      th: ["align"],
      td: ["align"],
      pre: ["tabindex", "class"],
      span: ["class"],
      table: ["tabindex"],
      ...Object.fromEntries(HEADINGS.map((tag) => [tag, ["id"]])),
    },
    allowedClasses: {
      a: ["reference", "anchor"],
      code: [/^language-[\w+-]+$/],
      pre: ["code"],
      span: ["k", "s", "c", "n", "t", "r", "b", "i", "g"],
    },
    allowedSchemes: ["http", "https", "mailto"],
    allowedSchemesByTag: { img: [] },
    allowProtocolRelative: false,
    transformTags: {
      a: sanitizeHtml.simpleTransform("a", { rel: "nofollow noopener" }),
      // Code blocks and tables scroll inside their box: a tab stop, so the keyboard can scroll them too.
      pre: (tagName, attribs) => ({
        tagName,
        attribs: { tabindex: "0", ...(attribs.class === "code" ? { class: "code" } : {}) },
      }),
      table: (tagName) => ({ tagName, attribs: { tabindex: "0" } }),
      // Only the read-only check boxes of task lists.
      input: (tagName, attribs) => ({
        tagName,
        attribs: {
          type: "checkbox",
          disabled: "",
          ...(attribs.checked !== undefined ? { checked: "" } : {}),
          "aria-label": attribs["aria-label"] ?? "task",
        },
      }),
      ...Object.fromEntries(
        HEADINGS.map((tag) => [
          tag,
          (tagName: string, attribs: sanitizeHtml.Attributes) => ({
            tagName,
            attribs: attribs.id?.startsWith(USER_CONTENT) ? { id: attribs.id } : {},
          }),
        ]),
      ),
    },
    exclusiveFilter: (frame) => frame.tag === "img" && !frame.attribs.src?.startsWith(RAW_ROUTE),
  });
}
