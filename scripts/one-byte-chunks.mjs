// Run by scripts/build.mjs after `next build`. V8 keeps a script's source text for as long as the
// script lives, one byte a character when every character is Latin-1 and two otherwise, and one
// "…" in an OpenAPI description or zod's bundled Chinese messages made the server's main chunks two
// bytes a character (3.9 MB for the 2 MB chunk holding the server's code). Every such character in
// a string, an untagged template, a regular expression or a comment is written as an escape with the
// same value, and the build checks that every string and template value is unchanged (regular
// expressions: tests/memory/server-chunks.test.ts).
import { parse } from "acorn";
import fs from "node:fs";
import path from "node:path";
import { writeByRename } from "./write-by-rename.mjs";

const WIDE = /[^\u0000-\u00ff]/;
const EVERY_WIDE = /[^\u0000-\u00ff]/g;
const escapeUnit = (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
const escapeWide = (text) => text.replace(EVERY_WIDE, escapeUnit);

const templateSource = (cooked) =>
  [...cooked]
    .map((char) => {
      if (char === "\\" || char === "`" || char === "$") return `\\${char}`;
      if (char === "\r") return "\\r";
      return char;
    })
    .join("")
    .replace(EVERY_WIDE, escapeUnit);

/** A regular expression's pattern with `\…` (an identity escape, outside Unicode mode) and `…` as `\u2026`. */
function regexSource(pattern) {
  let out = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      const next = pattern[++i] ?? "";
      out += WIDE.test(next) ? escapeUnit(next) : `\\${next}`;
    } else out += escapeWide(char);
  }
  return out;
}

/** Every node of a syntax tree, each before its children. */
function* nodesOf(root) {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    yield node;
    const children = [];
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) {
        for (const child of value) if (child && typeof child.type === "string") children.push(child);
      } else if (value && typeof value.type === "string") children.push(value);
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
}

/** The string and template values of a script, in order: what the escapes must leave unchanged. */
function valuesOf(ast) {
  const values = [];
  for (const node of nodesOf(ast)) {
    if (node.type === "Literal" && typeof node.value === "string") values.push(node.value);
    if (node.type === "TemplateElement") values.push(node.value.cooked);
  }
  return values;
}

// A CommonJS file may return at its top level or start with a hashbang.
const parseScript = (source, onComment) =>
  parse(source, {
    ecmaVersion: "latest",
    sourceType: "script",
    allowReturnOutsideFunction: true,
    allowHashBang: true,
    onComment,
  });

/** The edits that write each wide character where an escape means the same: `[start, end, text]`. */
function escapeEdits(source) {
  const edits = [];
  const ast = parseScript(source, (_block, _text, start, end) => {
    const text = source.slice(start, end);
    if (WIDE.test(text)) edits.push([start, end, escapeWide(text)]);
  });
  const tagged = new Set();
  for (const node of nodesOf(ast)) {
    if (node.type === "TaggedTemplateExpression") for (const quasi of node.quasi.quasis) tagged.add(quasi);
    if (node.type !== "Literal" && node.type !== "TemplateElement") continue;
    const raw = source.slice(node.start, node.end);
    if (!WIDE.test(raw)) continue;
    if (node.type === "Literal" && typeof node.value === "string")
      edits.push([node.start, node.end, escapeWide(JSON.stringify(node.value))]);
    else if (node.type === "Literal" && node.regex)
      edits.push([node.start, node.end, `/${regexSource(node.regex.pattern)}/${node.regex.flags}`]);
    // A tag reads the raw text, which an escape would change.
    else if (node.type === "TemplateElement" && !tagged.has(node) && raw === node.value.raw)
      edits.push([node.start, node.end, templateSource(node.value.cooked)]);
  }
  return { ast, edits: edits.sort((a, b) => a[0] - b[0]) };
}

function applyEdits(source, edits) {
  const pieces = [];
  let at = 0;
  for (const [start, end, text] of edits) {
    pieces.push(source.slice(at, start), text);
    at = end;
  }
  pieces.push(source.slice(at));
  return pieces.join("");
}

/**
 * `source` with its wide characters escaped where that keeps every value. Throws when the values
 * differ afterwards (the build fails rather than ship a changed chunk).
 */
export function oneByteSource(source) {
  if (!WIDE.test(source)) return source;
  const { ast, edits } = escapeEdits(source);
  const out = applyEdits(source, edits);
  const [before, after] = [valuesOf(ast), valuesOf(parseScript(out))];
  if (before.length !== after.length || before.some((value, i) => value !== after[i]))
    throw new Error("escaping changed a value");
  return out;
}

const serverChunks = (nextDir) => {
  const chunksDir = path.join(nextDir, "server", "chunks");
  if (!fs.existsSync(chunksDir)) return [];
  return fs
    .readdirSync(chunksDir, { recursive: true })
    .filter((name) => name.endsWith(".js"))
    .map((name) => ({ name, file: path.join(chunksDir, name) }));
};

/** The server's chunks under `nextDir` (`.next`) V8 would keep at two bytes a character. */
export function twoByteServerChunks(nextDir) {
  return serverChunks(nextDir)
    .filter(({ file }) => WIDE.test(fs.readFileSync(file, "utf8")))
    .map(({ name }) => name);
}

/**
 * Rewrites the server's chunks under `nextDir` (`.next`) in one-byte text where escapes allow.
 * Answers the chunks rewritten.
 */
export function oneByteServerChunks(nextDir) {
  const rewritten = [];
  for (const { name, file } of serverChunks(nextDir)) {
    const source = fs.readFileSync(file, "utf8");
    const escaped = oneByteSource(source);
    if (escaped === source) continue;
    writeByRename(file, escaped);
    rewritten.push(name);
  }
  return rewritten;
}
