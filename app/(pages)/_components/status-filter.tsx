/** A GET form choosing one status of a list (`?status=`), or any. */
export function StatusFilter({
  action,
  statuses,
  selected,
}: {
  action: string;
  statuses: readonly string[];
  selected?: string;
}) {
  return (
    <form method="get" action={action}>
      <label htmlFor="status">Status</label>
      <select id="status" name="status" defaultValue={selected ?? ""}>
        <option value="">any</option>
        {statuses.map((s) => (
          <option key={s} value={s}>
            {s.replace("_", " ")}
          </option>
        ))}
      </select>{" "}
      <button type="submit">Filter</button>
    </form>
  );
}
