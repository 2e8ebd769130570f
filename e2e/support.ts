import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export const baseURL = `http://localhost:${process.env.E2E_PORT}`;

// axe-core runs in the page itself (its legacy mode): by default each analysis also opens a blank
// page, injects axe there a second time and merges the frames' results in it, for pages with
// cross-origin frames, which ours do not have.
async function severeViolations(page: Page, rules?: string[]): Promise<string[]> {
  const builder = new AxeBuilder({ page }).setLegacyMode();
  const { violations } = await (rules ? builder.withRules(rules) : builder).analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(" ")).join(", ")})`,
    );
}

/**
 * No axe-core violation of serious or critical impact on the page as it stands; `soft` goes on to
 * the next check (a sweep of many pages reports them all). One exception to "as it stands": a page
 * re-rendered in place (a form's answer, a refresh) gets its new <title> a moment after its content,
 * as Next.js streams metadata on client navigations whatever `htmlLimitedBots` says (CI caught the
 * gap twice; docs/web.md; and once past 3 s, beside the benchmarks on a loaded 2-core machine). When a
 * missing title is the only violation, it counts only if it is still missing after 10 s of analysing
 * again; every other violation counts at once.
 */
export async function expectAccessible(
  page: Page,
  { soft = false, rules }: { soft?: boolean; rules?: string[] } = {},
): Promise<void> {
  const onlyTitleMissing = (found: string[]) => found.length > 0 && found.every((v) => v.startsWith("document-title:"));
  const deadline = Date.now() + 10_000;
  let severe = await severeViolations(page, rules);
  while (onlyTitleMissing(severe) && Date.now() < deadline) {
    await page.waitForTimeout(250);
    severe = await severeViolations(page, rules);
  }
  (soft ? expect.soft : expect)(severe, page.url()).toEqual([]);
}

/** Full-page screenshots at 1280 and 390 px wide, kept under e2e/screenshots (git-ignored, CI artifacts) for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 720 };
  await page.setViewportSize({ width: 1280, height: viewport.height });
  await page.screenshot({ path: path.join("e2e", "screenshots", `${name}-1280.png`), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  // Nothing wider than the phone's screen: wide tables and code scroll inside their own box.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: path.join("e2e", "screenshots", `${name}-390.png`), fullPage: true });
  await page.setViewportSize(viewport);
}

/** Signs in through the login page's dev-login form (which lands on the home page). */
export async function signIn(page: Page, username: string): Promise<void> {
  await page.goto("/login");
  await page.getByLabel("Username").fill(username);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText(`Signed in as ${username}`)).toBeVisible();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
}

/** A JSON call to the API with a bearer token (or the administrator key). */
export async function api<T = Record<string, unknown>>(
  method: string,
  apiPath: string,
  options: { token?: string; admin?: boolean; body?: unknown } = {},
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.admin) headers["x-admin-api-key"] = process.env.E2E_ADMIN_KEY!;
  const response = await fetch(`${baseURL}${apiPath}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: (await response.json().catch(() => ({}))) as T };
}

/** A user made with the administrator key, and its API token (dev login then signs in as it). */
export async function createUser(username: string): Promise<string> {
  const created = await api<{ token: string }>("POST", "/api/admin/users", { admin: true, body: { username } });
  expect(created.status).toBe(201);
  return created.body.token;
}

/** A project of the token's user with these files; answers its id. */
export async function createProject(
  token: string,
  name: string,
  files: Record<string, string>,
  visibility: "public" | "private" = "public",
): Promise<string> {
  const created = await api<{ id: string }>("POST", "/api/projects", { token, body: { name, visibility, files } });
  expect(created.status).toBe(201);
  return created.body.id;
}

/** A workspace of `project` ("@ns/slug") with one commit of `files`, proposed as a change; answers its id. */
export async function proposeChange(
  token: string,
  project: { path: string; id: string },
  workspace: string,
  files: Record<string, string>,
): Promise<string> {
  expect(
    (await api("POST", `/api/workspaces/${project.path}/workspaces`, { token, body: { name: workspace } })).status,
  ).toBe(201);
  expect(
    (
      await api("POST", `/api/workspaces/${workspace}/commit`, {
        token,
        body: { projectId: project.id, message: `Edit in ${workspace}`, files },
      })
    ).status,
  ).toBe(201);
  const proposed = await api<{ change: { id: string } }>("POST", `/api/projects/${project.path}/changes`, {
    token,
    body: { workspace },
  });
  expect(proposed.status).toBe(201);
  return proposed.body.change.id;
}
