import { expect, test, type Page } from "@playwright/test";
import { api, createProject, createUser, expectAccessible, signIn } from "./support";
import { forEachViewport } from "./viewports";

// Issue 44, items 1 and 6: activity in sentences with numbers and titles, changes addressed by
// number (and `!N` in Markdown), people with avatars linking to their profiles.
test.describe.configure({ mode: "serial" });

const owner = "ada";
const path = `@${owner}/almanac`;
let token = "";
let changeNumber = 0;

/** axe on each of the four viewports; the docs' screenshots (desktop light, phone dark) of the page. */
async function checkEverywhere(page: Page, name: string) {
  await forEachViewport(page, async (viewport) => {
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await expectAccessible(page);
    if (viewport.name === "desktop-light" || viewport.name === "phone-dark")
      await page.screenshot({ path: `docs/screenshots/${name}-${viewport.name}.png` });
  });
}

test("an agent's change is opened and merged: the activity says so in words, by number and title", async ({ page }) => {
  token = await createUser(owner);
  const projectId = await createProject(token, "almanac", { "README.md": "# almanac\n" });
  const agent = await api<{ token: string }>("POST", "/api/agents", { token, body: { name: "scribe" } });
  expect(agent.status).toBe(201);
  const agentToken = agent.body.token;
  expect(
    (await api("POST", `/api/workspaces/${path}/workspaces`, { token: agentToken, body: { name: "retries" } })).status,
  ).toBe(201);
  expect(
    (
      await api("POST", "/api/workspaces/retries/commit", {
        token: agentToken,
        body: { projectId, message: "Add retries", files: { "retry.txt": "3\n" } },
      })
    ).status,
  ).toBe(201);
  const proposed = await api<{ change: { id: string; number: number } }>("POST", `/api/projects/${path}/changes`, {
    token: agentToken,
    body: { workspace: "retries" },
  });
  expect(proposed.status).toBe(201);
  changeNumber = proposed.body.change.number;
  expect((await api("POST", `/api/changes/${proposed.body.change.id}/merge`, { token })).status).toBe(200);
  const issue = await api("POST", `/api/projects/${path}/issues`, {
    token,
    body: { title: "Retries need a cap", body: `Since !${changeNumber} we retry forever.` },
  });
  expect(issue.status).toBe(201);

  await signIn(page, owner);
  await page.goto(`/${path}`);
  const activity = page.locator("section[aria-labelledby=activity]");
  await expect(activity).toContainText(`ada's agent scribe opened change !${changeNumber} 'Add retries'`);
  await expect(activity).toContainText(`ada merged change !${changeNumber} 'Add retries'`);
  await expect(activity).toContainText("ada opened issue");
  await expect(activity).not.toContainText("change.created");
  const person = activity.getByRole("link", { name: owner }).first();
  await expect(person).toHaveAttribute("href", `/@${owner}`);
  await expect(person.locator("img.avatar")).toHaveAttribute("src", `/avatars/${owner}`);
  await activity
    .getByRole("link", { name: `change !${changeNumber} 'Add retries'` })
    .first()
    .click();
  await expect(page).toHaveURL(new RegExp(`/${path}/changes/${changeNumber}$`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText(`Add retries !${changeNumber}`);
  await checkEverywhere(page, "change-by-number");
  await page.goto(`/${path}`);
  await checkEverywhere(page, "project-activity");
});

test("the account page sets a display name, shown beside the username and on author links", async ({ page }) => {
  await signIn(page, owner);
  await page.getByRole("link", { name: "Account" }).click();
  await expect(page).toHaveURL(/\/settings\/account$/);
  await page.getByLabel("Shown beside your username").fill("  Ada Lovelace ");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status")).toHaveText("Saved.");
  await expect(page.getByLabel("Shown beside your username")).toHaveValue("Ada Lovelace");
  await checkEverywhere(page, "account");
  const me = await api<{ displayName: string | null }>("GET", "/api/users/me", { token });
  expect(me.body.displayName).toBe("Ada Lovelace");
  // A name with a control character is refused, with the API's reason on the page.
  await page.getByLabel("Shown beside your username").fill("Ada\u0007");
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.locator("main").getByRole("alert")).toContainText("control characters (VALIDATION_ERROR)");
});

test("!N in Markdown leads to the change of that number; the profile says what its person did", async ({ page }) => {
  await signIn(page, owner);
  await page.goto(`/${path}/issues/1`);
  await page.getByRole("link", { name: `!${changeNumber}`, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/${path}/changes/${changeNumber}$`));
  await page.goto(`/@${owner}`);
  const activity = page.locator("section[aria-labelledby=activity]");
  await expect(activity).toContainText(`ada merged change !${changeNumber} 'Add retries'`);
  await expect(activity).toContainText("ada opened issue #");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Ada Lovelace @ada");
  await expect(page.locator("h1 img.avatar")).toHaveAttribute("src", `/avatars/${owner}`);
  await expect(activity.getByRole("link", { name: owner, exact: true }).first()).toHaveAttribute(
    "title",
    "Ada Lovelace (@ada)",
  );
  await checkEverywhere(page, "profile");
});
