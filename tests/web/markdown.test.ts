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

  it("serves relative images from the raw route when given a project and ref, and drops every other image", () => {
    const images = { project: "@ann/demo", ref: "main", dir: "docs" };
    const html = renderMarkdown('![logo](img/logo.png "Logo") ![up](../top.svg) ![abs](/a b.png) ![out](../../x.png) ![far](https://t.example/p.gif) ![d](data:image/png;base64,AA)', images);
    expect(html).toContain('<img src="/api/projects/@ann/demo/raw?ref=main&amp;path=docs%2Fimg%2Flogo.png" alt="logo" title="Logo" />');
    expect(html).toContain('src="/api/projects/@ann/demo/raw?ref=main&amp;path=top.svg"');
    expect(html).not.toMatch(/t\.example|data:|x\.png/);
    expect(html.match(/<img/g)).toHaveLength(2);
    expect(renderMarkdown("![logo](img/logo.png)")).not.toContain("<img");
  });
});
