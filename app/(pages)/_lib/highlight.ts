import hljs from "highlight.js/lib/common";

/** A run of text and the colour class it takes (none for plain text). */
export interface Segment {
  text: string;
  className?: string;
}

/**
 * highlight.js's scopes folded into the few colours the stylesheet gives them (`.code .k` ...):
 * one letter each, since a file's every token carries one and the page sends them twice.
 */
const COLOUR: Record<string, string> = {
  ...Object.fromEntries(
    ["keyword", "selector-tag", "doctag", "template-tag", "type", "deletion"].map((scope) => [scope, "k"]),
  ),
  ...Object.fromEntries(["string", "regexp", "selector-attr", "selector-pseudo"].map((scope) => [scope, "s"])),
  ...Object.fromEntries(["comment", "quote", "code"].map((scope) => [scope, "c"])),
  ...Object.fromEntries(
    ["number", "literal", "variable", "template-variable", "attr", "symbol", "bullet", "link"].map((scope) => [
      scope,
      "n",
    ]),
  ),
  ...Object.fromEntries(["title", "section"].map((scope) => [scope, "t"])),
  ...Object.fromEntries(
    ["attribute", "name", "tag", "params", "meta", "selector-id", "selector-class"].map((scope) => [scope, "r"]),
  ),
  ...Object.fromEntries(["built_in", "addition"].map((scope) => [scope, "b"])),
  emphasis: "i",
  strong: "g",
};

/** The colour of text inside these open spans: the innermost scope that has one (as CSS nesting would pick). */
function colourOf(open: string[]): string | undefined {
  for (let i = open.length - 1; i >= 0; i--) {
    for (const name of open[i].split(" ")) {
      const colour = COLOUR[name.replace(/^hljs-/, "")];
      if (colour) return colour;
    }
  }
  return undefined;
}

/** Beyond this a file is shown plain: highlighting is linear but not free, and the page must stay fast. */
const HIGHLIGHT_BYTES_MAX = 256 * 1024;

/** Names highlight.js does not know by extension. */
const BY_NAME: Record<string, string> = {
  dockerfile: "dockerfile",
  makefile: "makefile",
  gemfile: "ruby",
  rakefile: "ruby",
};
const BY_EXTENSION: Record<string, string> = {
  tsx: "typescript",
  jsx: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  mts: "typescript",
  cts: "typescript",
  yml: "yaml",
  prisma: "graphql",
  svelte: "xml",
  vue: "xml",
};

/** The language of a file by its name, or null when highlight.js has none for it. */
export function languageOf(path: string): string | null {
  const name = path.split("/").at(-1)!.toLowerCase();
  if (BY_NAME[name]) return BY_NAME[name];
  const extension = name.includes(".") ? name.split(".").at(-1)! : "";
  const language = BY_EXTENSION[extension] ?? extension;
  return language && hljs.getLanguage(language) ? language : null;
}

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#x27;": "'" };

/**
 * A file's lines as highlighted segments, or null when it is not highlighted (unknown language,
 * too large). highlight.js answers escaped HTML whose only tags are `<span class>`; it is read
 * back into text and colours here, split at newlines (a span open across lines is reopened on
 * each), so the page never injects the highlighter's HTML (`code-html.ts` escapes the text again).
 */
export function highlightLines(path: string, source: string): Segment[][] | null {
  const language = languageOf(path);
  if (!language || source.length > HIGHLIGHT_BYTES_MAX) return null;
  const html = hljs.highlight(source, { language, ignoreIllegals: true }).value;
  const lines: Segment[][] = [[]];
  const open: string[] = [];
  for (const part of html.split(/(<span class="[^"]*">|<\/span>)/)) {
    if (part.startsWith("<span")) open.push(part.slice(13, -2));
    else if (part === "</span>") open.pop();
    else if (part !== "") {
      const text = part.replace(/&(amp|lt|gt|quot|#x27);/g, (entity) => ENTITIES[entity]);
      const className = colourOf(open);
      text.split("\n").forEach((piece, index) => {
        if (index > 0) lines.push([]);
        if (piece !== "") lines.at(-1)!.push({ text: piece, className });
      });
    }
  }
  return lines;
}
