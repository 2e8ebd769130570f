import { describe, expect, it } from "vitest";
import { renderMarkdown } from "@/app/(pages)/_lib/markdown";

const readme = { base: "/@alice/demo", ref: "main", dir: "docs" };

/** Payloads that try to turn rendered Markdown active: none may survive as markup that runs. */
const XSS = [
  "<script>alert(1)</script>",
  '<img src=x onerror="alert(1)">',
  '<img src="/api/projects/@alice/demo/raw?path=a.png" onerror="alert(1)">',
  "<svg onload=alert(1)>",
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  "[x](javascript:alert(1))",
  "[x](JaVaScRiPt:alert(1))",
  "[x](&#106;avascript:alert(1))",
  "[x](vbscript:msgbox(1))",
  "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "![x](javascript:alert(1))",
  "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
  '<a href="javascript:alert(1)">x</a>',
  '<div style="background:url(javascript:alert(1))" onclick="alert(1)">x</div>',
  "<style>body{display:none}</style>",
  '<form action="https://evil.example"><button>go</button></form>',
  '<object data="x.swf"></object><embed src="x.swf">',
  '<base href="https://evil.example/">',
  '<meta http-equiv="refresh" content="0;url=https://evil.example">',
  '<input type="text" name="password" value="x" onfocus="alert(1)" autofocus>',
  '<h2 id="content">clobber</h2><a name="content" id="content">x</a>',
  "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>",
];

describe("renderMarkdown", () => {
  it.each(XSS)("renders %s inert", (payload) => {
    const html = renderMarkdown(`text\n\n${payload}\n\n[ok](https://example.com)`, readme);
    expect(html).not.toMatch(/<(script|svg|iframe|style|form|object|embed|base|meta|math|button)\b/i);
    expect(html).not.toMatch(/\son\w+=|style=|srcdoc|javascript:|vbscript:|data:/i);
    expect(html).not.toMatch(/id="(?!user-content-)/);
    expect(html).not.toMatch(/<input(?![^>]*type="checkbox")/);
    expect(html).not.toMatch(/<input[^>]*\b(name|value|autofocus)=/);
    expect(html).toContain('<a href="https://example.com" rel="nofollow noopener">ok</a>');
  });

  it("renders GitHub-flavoured Markdown: tables, task lists, strikethrough, autolinks", () => {
    const html = renderMarkdown(
      "| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- [x] done\n- [ ] todo\n\n~~gone~~ https://example.com/x and www.example.org",
    );
    expect(html).toContain("<th>a</th>");
    expect(html).toContain('<td align="center">2</td>');
    expect(html).toContain('<input type="checkbox" disabled checked aria-label="done" />');
    expect(html).toContain('<input type="checkbox" disabled aria-label="to do" />');
    expect(html).toContain("<del>gone</del>");
    expect(html).toContain('<a href="https://example.com/x" rel="nofollow noopener">https://example.com/x</a>');
    expect(html).toContain('<a href="http://www.example.org" rel="nofollow noopener">www.example.org</a>');
  });

  it("makes code blocks and tables, which scroll inside their box, a tab stop, whatever tabindex the source gave", () => {
    const html = renderMarkdown('```\nx\n```\n\n| a |\n|---|\n| 1 |\n\n<pre tabindex="7">y</pre>');
    expect(html).toContain('<pre tabindex="0"><code>x');
    expect(html).toContain('<table tabindex="0">');
    expect(html).toContain('<pre tabindex="0">y</pre>');
    expect(html).not.toContain('tabindex="7"');
  });

  it("gives headings GitHub's anchors under the user-content prefix, and in-document links follow them", () => {
    const html = renderMarkdown("## Getting *started*!\n\n## Getting started\n\n[jump](#getting-started)");
    expect(html).toContain(
      '<h2 id="user-content-getting-started">Getting <em>started</em>! <a class="anchor" href="#user-content-getting-started"',
    );
    expect(html).toContain('<h2 id="user-content-getting-started-1">');
    expect(html).toContain('<a href="#user-content-getting-started" rel="nofollow noopener">jump</a>');
  });

  it("resolves relative links and images against the repository at the shown ref", () => {
    const html = renderMarkdown(
      "[guide](guide.md#install) [up](../README.md) [root](/src/) ![logo](img/logo.png) ![far](https://example.com/a.png)",
      readme,
    );
    expect(html).toContain('href="/@alice/demo/blob/main/docs/guide.md#user-content-install"');
    expect(html).toContain('href="/@alice/demo/blob/main/README.md"');
    expect(html).toContain('href="/@alice/demo/tree/main/src"');
    expect(html).toContain(
      '<img src="/api/projects/@alice/demo/raw?path=docs%2Fimg%2Flogo.png&amp;ref=main" alt="logo" />',
    );
    expect(html).not.toContain("https://example.com/a.png");
    expect(html).toContain("far");
  });

  it("links #12 to the project's issue and @name to the profile, not inside code, links or e-mail addresses", () => {
    const html = renderMarkdown(
      "Fixes #12, thanks @bob. `#13 @carol` [see #14](https://example.com) mail dave@example.com",
      { base: "/@alice/demo" },
    );
    expect(html).toContain('<a class="reference" href="/@alice/demo/issues/12" rel="nofollow noopener">#12</a>');
    expect(html).toContain('<a class="reference" href="/@bob" rel="nofollow noopener">@bob</a>');
    expect(html).toContain("<code>#13 @carol</code>");
    expect(html).not.toContain('href="/@alice/demo/issues/14"');
    expect(html).not.toContain('href="/@example"');
  });

  it("links !12 to the project's change (GitLab's merge request reference), not in code or links", () => {
    const html = renderMarkdown("Lands with !12. `!13` [see !14](https://example.com)", { base: "/@alice/demo" });
    expect(html).toContain('<a class="reference" href="/@alice/demo/changes/12" rel="nofollow noopener">!12</a>');
    expect(html).toContain("<code>!13</code>");
    expect(html).not.toMatch(/changes\/1[34]/);
  });

  it("colours a fenced block in a known language with the file views' classes, and escapes it", () => {
    const html = renderMarkdown('```ts\nconst x = "<b>";\n```\n\n```nosuchlang\nplain\n```');
    expect(html).toContain(
      '<pre tabindex="0" class="code"><code class="language-ts"><span class="k">const</span> x = ',
    );
    expect(html).toContain('<span class="s">"&lt;b&gt;"</span>');
    expect(html).toContain('<pre tabindex="0"><code class="language-nosuchlang">plain');
    // A class the highlighter never gives is dropped from source HTML.
    expect(renderMarkdown('<pre class="evil"><span class="x k">y</span></pre>')).not.toMatch(/evil|"x/);
  });

  it("escapes HTML inside code", () => {
    expect(renderMarkdown("`<b>x</b>`")).toContain("<code>&lt;b&gt;x&lt;/b&gt;</code>");
  });
});
