export const TEMPLATE_DB_NAME = "svc_test_template";

/** The maintenance database of the server named by a test database URL. */
export function adminUrl(url: string): string {
  const parsed = new URL(url);
  parsed.pathname = "/postgres";
  return parsed.toString();
}
