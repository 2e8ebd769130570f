import { expect, test } from "@playwright/test";
import { api, createProject, createUser, expectAccessible, screenshot, signIn } from "./support";

// Reading a project at a ref other than the default: a folder, another branch, that branch's
// history. Every page on the way is one a person reaches by clicking.
test("bruno clicks into a folder, switches branch and opens the branch's history", async ({ page }) => {
  const token = await createUser("bruno");
  await createProject(token, "atlas", {
    "README.md": "# Atlas\n",
    "docs/guide.md": "# Guide\n\nRead me.\n",
    "docs/deep/note.txt": "deep\n",
  });
  expect(
    (await api("POST", "/api/projects/@bruno/atlas/branches", { token, body: { name: "feature/maps" } })).status,
  ).toBe(201);
  await signIn(page, "bruno");

  await page.goto("/@bruno/atlas");
  await page.getByRole("table", { name: "Files" }).getByRole("link", { name: "docs/" }).click();
  await expect(page).toHaveURL(/\/@bruno\/atlas\/tree\/main\/docs$/);
  await expect(page.getByRole("table", { name: "Files" }).getByRole("link", { name: "guide.md" })).toBeVisible();
  await page.getByRole("table", { name: "Files" }).getByRole("link", { name: "deep/" }).click();
  await expect(page).toHaveURL(/\/tree\/main\/docs\/deep$/);
  await expect(page.getByRole("table", { name: "Files" }).getByRole("link", { name: "note.txt" })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "tree-folder");

  await page.goto("/@bruno/atlas");
  await page.getByLabel("Branch").selectOption("feature/maps");
  await page.getByRole("button", { name: "Switch" }).click();
  await expect(page).toHaveURL(/\?ref=feature%2Fmaps$/);
  await expect(page.getByLabel("Branch")).toHaveValue("feature/maps");
  await page.getByRole("table", { name: "Files" }).getByRole("link", { name: "docs/" }).click();
  await expect(page).toHaveURL(/\/tree\/feature%2Fmaps\/docs$/);
  await expect(page.getByRole("table", { name: "Files" }).getByRole("link", { name: "guide.md" })).toBeVisible();
  await expectAccessible(page);

  await page.getByRole("link", { name: "History" }).click();
  await expect(page).toHaveURL(/\/commits\/feature%2Fmaps$/);
  await expect(page.getByRole("heading", { name: "Commits on feature/maps" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Commits" }).getByRole("row")).not.toHaveCount(1);
  await expectAccessible(page);
  await screenshot(page, "commits-branch");
});
