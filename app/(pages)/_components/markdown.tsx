import { renderMarkdown, type RawImages } from "../_lib/markdown";

/** Sanitized Markdown (see renderMarkdown); the only place pages inject HTML. `images`: relative images from the raw route. */
export function Markdown({ source, label, images }: { source: string; label?: string; images?: RawImages }) {
  return <div className="markdown" aria-label={label} dangerouslySetInnerHTML={{ __html: renderMarkdown(source, images) }} />;
}
