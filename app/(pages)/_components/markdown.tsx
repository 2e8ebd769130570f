import { renderMarkdown, type MarkdownContext } from "../_lib/markdown";

/** Sanitized Markdown (see renderMarkdown); the only place pages inject HTML. */
export function Markdown({ source, label, context }: { source: string; label?: string; context?: MarkdownContext }) {
  return (
    <div
      className="markdown"
      aria-label={label}
      dangerouslySetInnerHTML={{ __html: renderMarkdown(source, context) }}
    />
  );
}
