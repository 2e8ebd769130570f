import { expect, test } from "@playwright/test";
import { api, createProject, createUser, expectAccessible, proposeChange, screenshot, signIn } from "./support";

// The change page says why a merge cannot go, on the page itself (never the API's JSON): before the
// click, the merge box lists what the merge's own gates refuse (changes requested, a base the
// default branch moved past) with Merge disabled; after it, a conflict with the way to resolve it.
// Two changes edit the same line; the first merges, the second meets every refusal in turn.
test.describe.configure({ mode: "serial" });

test("the merge box lists what blocks the merge, then a refused merge comes back with why, up to resolving the conflict", async ({
  page,
}) => {
  const token = await createUser("mira");
  const id = await createProject(token, "clash", { "notes.txt": "one\ntwo\nthree\n" });
  const project = { path: "@mira/clash", id };
  const first = await proposeChange(token, project, "clash-first", { "notes.txt": "one\nTWO (first)\nthree\n" });
  const second = await proposeChange(token, project, "clash-second", { "notes.txt": "one\nTWO (second)\nthree\n" });
  expect((await api("POST", `/api/changes/${first}/merge`, { token })).status).toBe(200);

  await signIn(page, "mira");
  const url = `/${project.path}/changes/${second}`;
  await page.goto(url);
  // The page's refusal, not Next.js's route announcer (also an alert).
  const refusal = page.getByRole("alert").filter({ hasText: "Refused" });
  const merge = page.getByRole("button", { name: "Merge", exact: true });
  const blockers = page.getByRole("list", { name: "Merge blockers" });

  // Changes requested: branch protection's reason is listed and Merge cannot be pressed.
  await page.getByLabel("Request changes").check();
  await page.getByRole("textbox", { name: "Comment", exact: true }).first().fill("Not this wording.");
  await page.getByRole("button", { name: "Submit review" }).click();
  await expect(page.getByRole("region", { name: "Reviews" })).toContainText("Not this wording.");
  await expect(blockers).toContainText("A reviewer requested changes");
  await expect(merge).toBeDisabled();
  await expectAccessible(page);
  await screenshot(page, "change-blocked-protection");

  // Approved, but the default branch moved under it: the box says to re-evaluate.
  await page.getByLabel("Approve").check();
  await page.getByRole("button", { name: "Submit review" }).click();
  await expect(blockers).not.toContainText("A reviewer requested changes");
  await expect(blockers).toContainText("re-evaluate");
  await expect(merge).toBeDisabled();
  await expectAccessible(page);

  // Re-evaluated on the new base, the merge meets the first change's edit: the conflict, its file and the way to resolve it.
  await page.getByRole("button", { name: "Re-evaluate" }).click();
  await expect(refusal).toHaveCount(0);
  await expect(blockers).toHaveCount(0);
  await merge.click();
  await expect(refusal).toContainText("MERGE_CONFLICT");
  await expect(refusal).toContainText("notes.txt");
  await refusal.getByRole("link", { name: "Resolve the conflict" }).click();
  const resolve = page.getByRole("form", { name: "Resolve the conflict" });
  await expect(resolve).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "change-refused-conflict");

  await resolve.getByLabel("this change's version").check();
  await resolve.getByRole("button", { name: "Resolve and merge" }).click();
  await expect(page.locator(".badge").filter({ hasText: "merged" }).first()).toBeVisible();
  await page.goto(`/${project.path}/blob/main/notes.txt`);
  await expect(page.getByText("TWO (second)")).toBeVisible();
});
