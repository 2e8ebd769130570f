import { describe, expect, it } from "vitest";
import {
  attribute,
  diffBlocks,
  escapeText,
  numberedLinesHtml,
  parseLineId,
  type DiffLine,
} from "@/app/(pages)/_lib/code-html";
import { diffFileHtml, expandLinkHtml, linePickerHtml, parseViewedValue } from "@/app/(pages)/_lib/diff-html";
import { highlightLines } from "@/app/(pages)/_lib/highlight";

/** Lines a diff or a file may hold that would run if they reached the page as markup. */
const HOSTILE = [
  "<script>alert(1)</script>",
  '"onerror=alert(1) x="',
  "<img src=x onerror=alert(1)>",
  "</p><script>alert(1)</script><p>",
  "&lt;script&gt; stays text &amp; so does this",
  "<!-- <svg onload=alert(1)> -->",
  "' onmouseover='alert(1)",
  "<a href=javascript:alert(1)>x</a>",
];

/** Every `<` of the markup opens one of the few tags code-html makes; anything else is input that escaped. */
const OUR_TAG =
  /^(p( class=[adh])?( data-o=\d+)?>|a id=(f\d+[on]\d+|L\d+) href=("\?[^"<>]*"|#[\w]+)( tabindex=-1)?>|\/a>|ins>|\/ins>|del>|\/del>|span class=[kscntrbig]>|\/span>)/;
const tagsOk = (html: string) =>
  html
    .split("<")
    .slice(1)
    .every((piece) => OUR_TAG.test(piece));
/** The text a browser shows: markup dropped, the two escapes undone. */
const textOf = (html: string) =>
  html
    .replace(/<p[^>]*>/g, "\n")
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&amp;/g, "&");

const hunk = (lines: DiffLine[]) => [{ header: "@@ -1,2 +1,2 @@", lines }];

describe("diff lines as HTML", () => {
  it.each(HOSTILE)("keeps %s inert text on every kind of line", (text) => {
    const lines: DiffLine[] = [
      { kind: "context", oldLine: 1, newLine: 1, text },
      { kind: "del", oldLine: 2, newLine: null, text: `${text} old` },
      { kind: "add", oldLine: null, newLine: 2, text: `${text} new` },
    ];
    const html = diffBlocks(hunk(lines), 0, { href: (id) => `?page=2&c=${id}`, breakAfter: () => false })
      .map((block) => block.html)
      .join("");
    expect(tagsOk(html)).toBe(true);
    expect(html).not.toMatch(/<(script|img|svg|!--)/i);
    expect(textOf(html)).toContain(`${text}\n`);
    expect(textOf(html)).toContain(`${text} old`);
    expect(textOf(html)).toContain(`${text} new`);
    expect(html).toContain('href="?page=2&amp;c=f0n1"');
  });

  it("marks lines by kind, numbers them with anchors in the tab order, and marks the changed words", () => {
    const [block] = diffBlocks(
      hunk([
        { kind: "context", oldLine: 4, newLine: 5, text: "a" },
        { kind: "del", oldLine: 5, newLine: null, text: "const limit = 10;" },
        { kind: "add", oldLine: null, newLine: 6, text: "const limit = 20;" },
      ]),
      3,
      { breakAfter: () => false },
    );
    expect(block.html).toBe(
      "<p class=h>@@ -1,2 +1,2 @@" +
        "<p data-o=4><a id=f3n5 href=#f3n5>5</a>a" +
        "<p class=d><a id=f3o5 href=#f3o5>5</a>const limit = <del>10</del>;" +
        "<p class=a><a id=f3n6 href=#f3n6>6</a>const limit = <ins>20</ins>;",
    );
  });

  it("links a writer's line numbers to the comment form, quoted when the query needs it, and cuts the lines where a thread goes", () => {
    const blocks = diffBlocks(
      hunk([
        { kind: "context", oldLine: 1, newLine: 1, text: "a" },
        { kind: "del", oldLine: 2, newLine: null, text: "b" },
        { kind: "add", oldLine: null, newLine: 2, text: "c" },
      ]),
      7,
      { href: (id) => `?c=${id}`, breakAfter: (anchor) => anchor.side === "old" && anchor.line === 2 },
    );
    expect(blocks.map((block) => block.after)).toEqual([{ side: "old", line: 2 }, null]);
    expect(blocks[0].html).toContain('<a id=f7o2 href="?c=f7o2">2</a>b');
    expect(blocks[1].html).toBe('<p class=a><a id=f7n2 href="?c=f7n2">2</a>c');
  });

  it("starts each hunk's header with the link to more context, its path inert", () => {
    const two = [...hunk([{ kind: "add", oldLine: null, newLine: 1, text: "a" }]), ...hunk([])];
    for (const path of HOSTILE) {
      const expand = expandLinkHtml("/@a/b/changes/x?page=1&expand=2:23#file-2", 20, path);
      const [block] = diffBlocks(two, 2, { expand, breakAfter: () => false });
      expect(block.html.split(expand)).toHaveLength(3);
      expect(tagsOf(expand)).toEqual(["a", "/a"]);
    }
  });

  it("reads a comment link's line back, and nothing else", () => {
    expect(parseLineId("f12o40")).toEqual({ fileIndex: 12, side: "old", line: 40 });
    expect(parseLineId("f0n1")).toEqual({ fileIndex: 0, side: "new", line: 1 });
    for (const bad of ["f1x2", "1n2", "f1n", "f1n2 ", ["f1n2"], undefined]) expect(parseLineId(bad)).toBeNull();
  });
});

describe("file lines as HTML", () => {
  it.each(HOSTILE)("keeps %s inert in plain and highlighted files", (text) => {
    const source = `const x = "${text}";\n// ${text}\n${text}`;
    const lines = source.split("\n");
    for (const html of [
      numberedLinesHtml(lines, 1, null),
      numberedLinesHtml(lines, 1, highlightLines("a.ts", source)),
    ]) {
      expect(tagsOk(html)).toBe(true);
      expect(html).not.toMatch(/<(script|img|svg|!--)/i);
      expect(
        textOf(html)
          .split("\n")
          .slice(1)
          .map((line) => line.replace(/^\d+/, "")),
      ).toEqual(lines);
    }
  });

  it("gives each line its #L<n> anchor and highlighted tokens one colour class", () => {
    const html = numberedLinesHtml(["export const a = 1;"], 10, [
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [],
      [{ text: "export", className: "k" }, { text: " const a = " }, { text: "1", className: "n" }, { text: ";" }],
    ]);
    expect(html).toBe(
      "<p><a id=L10 href=#L10 tabindex=-1>10</a><span class=k>export</span> const a = <span class=n>1</span>;",
    );
    expect(highlightLines("a.ts", "export const a = 1; // one")![0]).toEqual([
      { text: "export", className: "k" },
      { text: " " },
      { text: "const", className: "k" },
      { text: " a = " },
      { text: "1", className: "n" },
      { text: "; " },
      { text: "// one", className: "c" },
    ]);
  });

  it("escapes only what starts markup in text", () => {
    expect(escapeText(`a < b && c > "d" 'e'`)).toBe(`a &lt; b &amp;&amp; c > "d" 'e'`);
  });

  it("leaves an attribute value unquoted only when nothing in it ends or escapes one", () => {
    expect(attribute("f3n12")).toBe("f3n12");
    expect(attribute("lib/a.ts")).toBe("lib/a.ts");
    for (const [value, quoted] of [
      ["?c=f1n2", '"?c=f1n2"'],
      ["a b", '"a b"'],
      ['x" onclick="y', '"x&quot; onclick=&quot;y"'],
      ["a&amp;b", '"a&amp;amp;b"'],
      ["a>b", '"a>b"'],
      ["", '""'],
      ["a'b", '"a\'b"'],
      ["a`b", '"a`b"'],
    ]) {
      expect(attribute(value)).toBe(quoted);
    }
  });
});

/**
 * The tags of the markup, read as a browser would: each `<` opens one of these tags, whose attribute
 * values are unquoted words or quoted with `&` and `"` escaped (a `<` inside one is inert); null if
 * anything else (input that escaped) is found.
 */
const TAG = /<(\/?[a-z]+)(?: [a-z-]+(?:=(?:[^\s"'=<>`&]+|"(?:[^"&]|&amp;|&quot;)*"))?)*>/y;
function tagsOf(html: string): string[] | null {
  const names: string[] = [];
  for (let i = html.indexOf("<"); i !== -1; i = html.indexOf("<", TAG.lastIndex)) {
    TAG.lastIndex = i;
    const match = TAG.exec(html);
    if (!match) return null;
    names.push(match[1]);
  }
  return names;
}

describe("a diff's file as HTML", () => {
  const file = (path: string) => ({
    path,
    previousPath: `${path}.old`,
    status: "renamed" as const,
    binary: false,
    additions: 1,
    deletions: 2,
    truncated: true,
    hunks: [{}],
  });

  it.each(HOSTILE)("keeps a path %s inert in the summary, the Viewed button and the labels", (path) => {
    const html = diffFileHtml(file(path), 4, "<p class=a>x", { viewed: false, markable: true });
    expect(new Set(tagsOf(html))).toEqual(
      new Set([
        "button",
        "/button",
        "details",
        "summary",
        "span",
        "/span",
        "/summary",
        "div",
        "p",
        "/p",
        "/div",
        "/details",
      ]),
    );
    const [, value] = /<button [^>]*value=("[^"]*"|\S+) /.exec(html)!;
    const decoded = value.startsWith('"')
      ? value
          .slice(1, -1)
          .replace(/&quot;/g, '"')
          .replace(/&amp;/g, "&")
      : value;
    expect(parseViewedValue(decoded)).toEqual({ index: 4, viewed: true, path });
  });

  it("shows a viewed file folded with its badge and a pressed button that unmarks it", () => {
    const html = diffFileHtml({ ...file("a.ts"), status: "modified", truncated: false }, 7, "<p>x", {
      viewed: true,
      markable: true,
    });
    expect(html).toBe(
      "<div class=file-box>" +
        '<button form=viewed name=file value="7 false a.ts" class=viewed-toggle aria-pressed=true aria-label="Viewed a.ts">Viewed</button>' +
        "<details class=file id=file-7><summary>a.ts <span class=badge>modified</span> <span class=badge>viewed</span> <span class=muted>+1 −2</span></summary>" +
        '<div class="scroll code diff" role=group aria-label="Diff of a.ts" tabindex=0><div class=lines><p>x</div></div></details></div>',
    );
  });

  it("says when a file is binary or has no text changes, and has no button for a reader who cannot mark", () => {
    expect(
      diffFileHtml({ ...file("b.png"), status: "added", binary: true, hunks: [], truncated: false }, 0, "", {
        viewed: false,
        markable: false,
      }),
    ).toBe(
      "<div class=file-box><details class=file id=file-0 open><summary>b.png <span class=badge>added</span> <span class=muted>+1 −2</span></summary><p class=notice>Binary file; not shown.</p></details></div>",
    );
    expect(
      diffFileHtml({ ...file("c"), status: "modified", hunks: [], truncated: false }, 0, "", {
        viewed: false,
        markable: false,
      }),
    ).toContain("<p class=muted>No text changes.</p></details></div>");
  });

  it.each(HOSTILE)("keeps a path %s inert in the line picker", (path) => {
    const html = linePickerHtml(
      [
        { path, index: 3 },
        { path: "b.ts", index: 4 },
      ],
      2,
      "/@a/b/changes/x",
    );
    expect(new Set(tagsOf(html))).toEqual(
      new Set([
        "form",
        "input",
        "div",
        "label",
        "/label",
        "select",
        "option",
        "/select",
        "/div",
        "button",
        "/button",
        "/form",
      ]),
    );
    expect(html).toContain("<select id=pick-file name=f><option value=3>");
    expect(html).toContain("<option value=4>b.ts</select>");
  });

  it("reads a Viewed button's value back, and nothing else", () => {
    expect(parseViewedValue("12 true dir/a b.ts")).toEqual({ index: 12, viewed: true, path: "dir/a b.ts" });
    for (const bad of ["", "x true a", "1 yes a", "1 true ", "1true a"]) expect(parseViewedValue(bad)).toBeNull();
  });
});
