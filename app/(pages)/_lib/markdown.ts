import { Marked } from "marked";
import sanitizeHtml from "sanitize-html";

const marked = new Marked({ gfm: true, async: false });

/**
 * Markdown to HTML that is safe to inject: marked renders (raw HTML passes through it), then
 * sanitize-html keeps only its default allow-list of tags (no forms, scripts, styles or images)
 * and http(s)/mailto links.
 */
export function renderMarkdown(source: string): string {
  const html = marked.parse(source) as string;
  return sanitizeHtml(html, {
    allowedTags: [...sanitizeHtml.defaults.allowedTags, "del"],
    allowedAttributes: { a: ["href", "title", "rel"], code: ["class"], th: ["align"], td: ["align"] },
    allowedSchemes: ["http", "https", "mailto"],
    transformTags: { a: sanitizeHtml.simpleTransform("a", { rel: "nofollow noopener" }) },
  });
}
