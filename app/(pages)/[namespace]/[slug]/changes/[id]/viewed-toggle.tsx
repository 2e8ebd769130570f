/**
 * A file's "viewed" mark: a form button (no script needed) that reads as a check box; a viewed file
 * is shown folded, and the mark holds until the change gets a new tip.
 */
export function ViewedToggle({ changeId, path, viewed, back, action }: { changeId: string; path: string; viewed: boolean; back: string; action: (form: FormData) => Promise<void> }) {
  return (
    <form action={action} className="viewed-toggle">
      <input type="hidden" name="changeId" value={changeId} />
      <input type="hidden" name="path" value={path} />
      <input type="hidden" name="viewed" value={viewed ? "false" : "true"} />
      <input type="hidden" name="back" value={back} />
      <button type="submit" aria-pressed={viewed} aria-label={`Viewed ${path}`}>
        <span aria-hidden="true">{viewed ? "☑" : "☐"}</span> Viewed
      </button>
    </form>
  );
}
