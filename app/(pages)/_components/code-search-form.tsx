/** The code search box: a GET form to the project's search page. */
export function CodeSearchForm({
  base,
  gitRef,
  q = "",
  regex = false,
}: {
  base: string;
  gitRef: string;
  q?: string;
  regex?: boolean;
}) {
  return (
    <form method="get" action={`${base}/search`} role="search" aria-label="Code search">
      <input type="hidden" name="ref" value={gitRef} />
      <label htmlFor="code-search">Search the code</label>
      <input id="code-search" type="search" name="q" defaultValue={q} required maxLength={1000} />{" "}
      <input type="checkbox" id="code-search-regex" name="regex" value="true" defaultChecked={regex} />{" "}
      <label className="check" htmlFor="code-search-regex">
        regular expression
      </label>{" "}
      <button type="submit">Search</button>
    </form>
  );
}
