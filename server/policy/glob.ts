import picomatch from "picomatch";

/**
 * Path globs of the policy file, matched by picomatch: `*` within one path segment, `**` any number
 * of segments, `?` one character, `{pem,key}` alternatives, `[abc]` classes; dot files match too.
 * Like .gitignore: a pattern without a slash matches the file name in any directory (`*.lock`
 * matches `a/b/yarn.lock`), a leading `/` anchors at the root, a trailing `/` covers a whole
 * directory, and `!pattern` later in a list excludes what earlier patterns matched.
 */
export function globMatcher(pattern: string): (path: string) => boolean {
  let body = pattern.replace(/^\/+/, "");
  if (body.endsWith("/")) body += "**";
  return picomatch(body, { dot: true, basename: !pattern.includes("/") });
}

/** Compiles a list of globs into one predicate; the last pattern that matches decides. */
export function pathMatcher(patterns: readonly string[]): (path: string) => boolean {
  const rules = patterns.map((pattern) => {
    const negated = pattern.startsWith("!");
    return { negated, matches: globMatcher(negated ? pattern.slice(1) : pattern) };
  });
  return (path) => {
    let matched = false;
    for (const rule of rules) if (rule.matches(path)) matched = !rule.negated;
    return matched;
  };
}
