/**
 * The subset of Inngest's CEL expressions the embedded executor evaluates (trigger `if`, waitForEvent
 * `if`, cancelOn `if`/`match`, concurrency keys): literals, member paths (`event.data.id`,
 * `async.data["x"]`, `a.list[0]`), `! - + == != < <= > >= && ||` and parentheses. Anything else is a
 * syntax error, raised when a function is registered rather than when an event arrives.
 */
export type Compiled = (scope: Record<string, unknown>) => unknown;

type Token = { kind: "num" | "str" | "id" | "op"; value: string };

const OPERATORS = ["||", "&&", "==", "!=", "<=", ">=", "<", ">", "+", "-", "!", "(", ")", ".", "[", "]"];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (/[0-9]/.test(ch)) {
      const match = /^[0-9]+(\.[0-9]+)?/.exec(source.slice(i))!;
      tokens.push({ kind: "num", value: match[0] });
      i += match[0].length;
    } else if (/[A-Za-z_]/.test(ch)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))!;
      tokens.push({ kind: "id", value: match[0] });
      i += match[0].length;
    } else if (ch === "'" || ch === '"') {
      let value = "";
      let j = i + 1;
      while (j < source.length && source[j] !== ch) {
        if (source[j] === "\\" && j + 1 < source.length) j++;
        value += source[j++];
      }
      if (j >= source.length) throw new Error(`unterminated string in expression: ${source}`);
      tokens.push({ kind: "str", value });
      i = j + 1;
    } else {
      const op = OPERATORS.find((candidate) => source.startsWith(candidate, i));
      if (!op) throw new Error(`unsupported character "${ch}" in expression: ${source}`);
      tokens.push({ kind: "op", value: op });
      i += op.length;
    }
  }
  return tokens;
}

const BINARY_PRECEDENCE: Array<string[]> = [["||"], ["&&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"]];

function equal(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object")
    return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

function compare(op: string, a: unknown, b: unknown): boolean {
  if (!((typeof a === "number" && typeof b === "number") || (typeof a === "string" && typeof b === "string")))
    return false;
  if (op === "<") return a < b;
  if (op === "<=") return a <= b;
  if (op === ">") return a > b;
  return a >= b;
}

/** A value as `+` joins it to a string: a string as itself, null and undefined as nothing, the rest as JSON (numbers, booleans as written). */
const joined = (value: unknown): string =>
  typeof value === "string" ? value : value === null || value === undefined ? "" : JSON.stringify(value);

function applyBinary(op: string, a: unknown, b: unknown): unknown {
  switch (op) {
    case "==":
      return equal(a, b);
    case "!=":
      return !equal(a, b);
    case "+":
      return typeof a === "number" && typeof b === "number" ? a + b : joined(a) + joined(b);
    case "-":
      return Number(a) - Number(b);
    default:
      return compare(op, a, b);
  }
}

function member(target: unknown, key: unknown): unknown {
  if (target === null || typeof target !== "object") return null;
  const value = (target as Record<string, unknown>)[String(key)];
  return value === undefined ? null : value;
}

/** Parses `source` once; the result evaluates it against a scope like `{event, async}`. */
export function compileExpression(source: string): Compiled {
  const tokens = tokenize(source);
  let pos = 0;
  const peek = () => tokens[pos];
  const isOp = (value: string) => peek()?.kind === "op" && peek().value === value;
  const expect = (value: string) => {
    if (!isOp(value)) throw new Error(`expected "${value}" in expression: ${source}`);
    pos++;
  };

  function primary(): Compiled {
    const token = tokens[pos++];
    if (!token) throw new Error(`unexpected end of expression: ${source}`);
    if (token.kind === "num") {
      const value = Number(token.value);
      return () => value;
    }
    if (token.kind === "str") return () => token.value;
    if (token.kind === "id") {
      if (token.value === "true" || token.value === "false") {
        const value = token.value === "true";
        return () => value;
      }
      if (token.value === "null") return () => null;
      if (isOp("(")) throw new Error(`function calls are not supported in expression: ${source}`);
      return (scope) => member(scope, token.value);
    }
    if (token.value === "(") {
      const inner = binary(0);
      expect(")");
      return inner;
    }
    if (token.value === "!" || token.value === "-") {
      const operand = postfix(primary());
      return token.value === "!" ? (scope) => !operand(scope) : (scope) => -Number(operand(scope));
    }
    throw new Error(`unexpected "${token.value}" in expression: ${source}`);
  }

  function postfix(base: Compiled): Compiled {
    let node = base;
    for (;;) {
      if (isOp(".")) {
        pos++;
        const name = tokens[pos++];
        if (!name || name.kind !== "id") throw new Error(`expected a field name in expression: ${source}`);
        const target = node;
        node = (scope) => member(target(scope), name.value);
      } else if (isOp("[")) {
        pos++;
        const index = binary(0);
        expect("]");
        const target = node;
        node = (scope) => member(target(scope), index(scope));
      } else {
        return node;
      }
    }
  }

  function binary(level: number): Compiled {
    if (level === BINARY_PRECEDENCE.length) return postfix(primary());
    let left = binary(level + 1);
    while (peek()?.kind === "op" && BINARY_PRECEDENCE[level].includes(peek().value)) {
      const op = tokens[pos++].value;
      const right = binary(level + 1);
      const lhs = left;
      if (op === "&&") left = (scope) => Boolean(lhs(scope)) && Boolean(right(scope));
      else if (op === "||") left = (scope) => Boolean(lhs(scope)) || Boolean(right(scope));
      else left = (scope) => applyBinary(op, lhs(scope), right(scope));
    }
    return left;
  }

  const root = binary(0);
  if (pos !== tokens.length) throw new Error(`unexpected "${tokens[pos].value}" in expression: ${source}`);
  return root;
}
