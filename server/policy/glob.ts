/**
 * Path globs of the policy file: `*` matches within one path segment, `**` any number of segments,
 * `?` one character. A pattern without a slash matches the file name in any directory
 * (`*.lock` matches `a/b/yarn.lock`), like .gitignore.
 */
export function globToRegExp(pattern: string): RegExp {
  const anchored = pattern.includes("/");
  const body = pattern.replace(/^\/+/, "");
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "*") {
      if (body[i + 1] === "*") {
        const slashAfter = body[i + 2] === "/";
        out += slashAfter ? "(?:.*/)?" : ".*";
        i += slashAfter ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (ch === "?") {
      out += "[^/]";
    } else {
      out += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  // A directory pattern ("build/") covers everything below it.
  if (out.endsWith("/")) out += ".*";
  return new RegExp(anchored ? `^${out}$` : `(?:^|/)${out}$`);
}

/** Compiles a list of globs into one predicate. */
export function pathMatcher(patterns: readonly string[]): (path: string) => boolean {
  if (patterns.length === 0) return () => false;
  const regexps = patterns.map(globToRegExp);
  return (path) => regexps.some((re) => re.test(path));
}
