import path from "node:path";
import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";

const marked = new Marked({ gfm: true, async: false });

/** Where a README's relative images are read from: the project's raw route at one ref (contracts/read.md). */
export interface RawImages {
  /** The project path, `@ns/slug`. */
  project: string;
  /** A branch or a full commit id. */
  ref: string;
  /** The directory of the Markdown file, from the repository root ("" for the root). */
  dir: string;
}

/**
 * A relative image source as the raw route's URL (`/api/projects/@ns/slug/raw?ref=&path=`), or null
 * for anything else: absolute URLs, `data:` and paths that climb out of the repository are dropped.
 */
export function rawImageUrl(src: string, images: RawImages): string | null {
  if (/^[a-z][a-z0-9+.-]*:|^\/\//i.test(src)) return null;
  const bare = src.split(/[?#]/)[0];
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return null;
  }
  const resolved = path.posix.normalize(decoded.startsWith("/") ? decoded.slice(1) : path.posix.join(images.dir, decoded));
  if (resolved === "." || resolved.startsWith("../") || resolved === "..") return null;
  return `/api/projects/${images.project}/raw?ref=${encodeURIComponent(images.ref)}&path=${encodeURIComponent(resolved)}`;
}

/**
 * Markdown to HTML that is safe to inject: marked renders (raw HTML passes through it), then
 * sanitize-html keeps only its default allow-list of tags (no forms, scripts or styles) and
 * http(s)/mailto links. Images only with `images`, and only relative ones, served by the raw route
 * (CSP sandbox, nosniff: an SVG cannot run there).
 */
export function renderMarkdown(source: string, images?: RawImages): string {
  const html = marked.parse(source) as string;
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, "del", ...(images ? ["img"] : [])],
    allowedAttributes: { a: ["href", "title", "rel"], code: ["class"], th: ["align"], td: ["align"], img: ["src", "alt", "title"] },
    allowedSchemes: ["http", "https", "mailto"],
    transformTags: {
      a: sanitizeHtml.simpleTransform("a", { rel: "nofollow noopener" }),
      img: (tagName, attribs) => {
        const src = images && attribs.src ? rawImageUrl(attribs.src, images) : null;
        const { alt, title } = attribs;
        return { tagName, attribs: { ...(src ? { src } : {}), ...(alt ? { alt } : {}), ...(title ? { title } : {}) } };
      },
    },
    exclusiveFilter: (frame) => frame.tag === "img" && !frame.attribs.src,
  });
}
