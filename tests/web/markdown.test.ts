import { describe, expect, it } from "vitest";
import { renderMarkdown } from "@/app/(pages)/_lib/markdown";

describe("renderMarkdown", () => {
  it("renders Markdown and drops scripts, event handlers, styles and javascript: links", () => {
    const html = renderMarkdown(
      '# Title\n\n**bold** [ok](https://example.com) [bad](javascript:alert(1))\n\n<script>alert(1)</script><img src=x onerror="alert(1)"><div style="x" onclick="y">text</div><iframe src="https://e.com"></iframe>',
    );
    expect(html).toContain("<h1>Title</h1>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain('<a href="https://example.com" rel="nofollow noopener">ok</a>');
    expect(html).not.toMatch(/<script|onerror|onclick|style=|<img|<iframe|javascript:/i);
    expect(html).toContain("<div>text</div>");
  });

  it("escapes HTML inside code", () => {
    expect(renderMarkdown("`<b>x</b>`")).toContain("<code>&lt;b&gt;x&lt;/b&gt;</code>");
  });
});
