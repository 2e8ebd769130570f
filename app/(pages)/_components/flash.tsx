/** What the last form's API call refused (set by write() in the query string), shown above the page. */
export function Flash({ query }: { query: Record<string, string | string[] | undefined> }) {
  const error = typeof query.error === "string" ? query.error : undefined;
  if (!error) return null;
  const list = (value: string | string[] | undefined) =>
    value === undefined ? [] : Array.isArray(value) ? value : [value];
  const reasons = list(query.reason);
  const files = list(query.file);
  return (
    <div className="error" role="alert">
      <p>
        <strong>Refused:</strong> {error}
        {typeof query.code === "string" && <> ({query.code})</>}
      </p>
      {reasons.length > 0 && (
        <ul aria-label="Reasons">
          {reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      )}
      {files.length > 0 && (
        <>
          <p>
            Conflicting files
            {typeof query.conflict === "string" && (
              <>
                {" "}
                (<a href="#resolve-conflict">Resolve the conflict</a> below)
              </>
            )}
            :
          </p>
          <ul>
            {files.map((file) => (
              <li key={file}>
                <code>{file}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
