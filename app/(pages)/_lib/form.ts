/** A text field of a submitted form ("" when absent). */
export const field = (form: FormData, name: string): string => {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
};

/** An optional text field: undefined when absent or blank. */
export const optionalField = (form: FormData, name: string): string | undefined =>
  field(form, name).trim() || undefined;

/** The page a form returns to: a local path only (never `//host` or a scheme), else the home page. */
export function backTo(form: FormData): string {
  const back = field(form, "back");
  return /^\/(?![/\\])/.test(back) ? back : "/";
}
