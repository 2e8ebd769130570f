import { renderMarkdown } from "../_lib/markdown";

/** Sanitized Markdown (see renderMarkdown); the only place pages inject HTML. */
export function Markdown({ source, label }: { source: string; label?: string }) {
  return <div className="markdown" aria-label={label} dangerouslySetInnerHTML={{ __html: renderMarkdown(source) }} />;
}
