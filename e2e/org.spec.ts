import { expect, test } from "@playwright/test";
import { api, createUser, expectAccessible, screenshot, signIn } from "./support";

// The organization page: its projects, and its admins manage members and teams from the page.
test("an organization's owner sees its projects, adds a member and makes a team", async ({ page }) => {
  const token = await createUser("olga");
  await createUser("oscar");
  expect((await api("POST", "/api/orgs", { token, body: { slug: "acme", name: "Acme" } })).status).toBe(201);
  expect(
    (await api("POST", "/api/projects", { token, body: { name: "rocket", org: "acme", files: { "a.txt": "a\n" } } }))
      .status,
  ).toBe(201);

  await signIn(page, "olga");
  await page.goto("/orgs/acme");
  await expect(page).toHaveTitle("Organization acme · svc-forge");
  await expect(
    page.getByRole("region", { name: "Projects" }).getByRole("link", { name: "@acme/rocket" }),
  ).toBeVisible();

  await page.getByLabel("Username", { exact: true }).fill("oscar");
  await page.getByLabel("Role", { exact: true }).selectOption("write");
  await page.getByRole("button", { name: "Save member" }).click();
  await expect(
    page.getByRole("table", { name: "Members" }).getByRole("row").filter({ hasText: "oscar" }),
  ).toContainText("write");

  await page.getByLabel("Slug").fill("core");
  await page.getByLabel("Name (optional)").fill("Core team");
  await page.getByRole("button", { name: "Create team" }).click();
  const team = page.getByRole("article", { name: "Team Core team" });
  await expect(team).toBeVisible();
  await team.getByLabel("Add a member to Core team").fill("oscar");
  await team.getByRole("button", { name: "Add" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Refused" })).toHaveCount(0);
  await expectAccessible(page);
  await screenshot(page, "organization");

  const members = await api<{ members: Array<{ user: { username: string } }> }>(
    "GET",
    "/api/orgs/acme/teams/core/members",
    { token },
  );
  expect(members.body.members.map((member) => member.user.username)).toEqual(["oscar"]);
});
