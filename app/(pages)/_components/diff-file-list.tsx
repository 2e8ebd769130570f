type ListedFile = { path: string; previousPath: string | null; status: string; additions: number; deletions: number };

/**
 * The files of a page of a diff, each a link to its diff below (`#file-<index>`, the anchor
 * DiffFiles gives it) with its +/- counts and, for a signed-in reader, whether they marked it viewed.
 */
export function DiffFileList({
  files,
  firstIndex,
  viewed,
}: {
  files: ListedFile[];
  firstIndex: number;
  viewed?: Set<string>;
}) {
  if (files.length === 0) return null;
  return (
    <nav aria-label="Files on this page" className="file-jump">
      <ol className="file-list">
        {files.map((file, i) => (
          <li key={file.path} className={viewed?.has(file.path) ? "viewed" : undefined}>
            <a href={`#file-${firstIndex + i}`}>
              {file.previousPath && file.previousPath !== file.path ? `${file.previousPath} → ${file.path}` : file.path}
            </a>{" "}
            <span className="muted">
              {file.status} · <span aria-label={`${file.additions} added`}>+{file.additions}</span>{" "}
              <span aria-label={`${file.deletions} removed`}>−{file.deletions}</span>
              {viewed?.has(file.path) && " · viewed"}
            </span>
          </li>
        ))}
      </ol>
    </nav>
  );
}
