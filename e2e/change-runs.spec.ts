import { expect, test } from "@playwright/test";
import { createProject, createUser, expectAccessible, proposeChange, signIn } from "./support";

// The change page follows its runs: a change whose suite takes a few seconds is shown queued or
// running, then passed or failed without a reload, and a failed test links to its file and line
// at the evaluated commit. Needs SANDBOX_ENABLED (playwright.config.ts) and bubblewrap.
const SUITE = [
  'import assert from "node:assert/strict";',
  'import fs from "node:fs";',
  'import { test } from "node:test";',
  "",
  'test("no change is marked failing", async () => {',
  "  await new Promise((resolve) => setTimeout(resolve, 8000));",
  '  assert.equal(fs.existsSync("fail.txt"), false);',
  "});",
  "",
].join("\n");
const ASSERT_LINE = 7;

test("runs go from queued or running to their end on the open page; a failed test links to its line", async ({
  page,
}) => {
  const token = await createUser("runa");
  const id = await createProject(token, "suite", {
    ".svc/policy.yml":
      "evaluators:\n  sandbox: { command: 'node --test --test-reporter=tap test/suite.test.mjs' }\nevaluation: { waitSeconds: 0 }\n",
    "test/suite.test.mjs": SUITE,
  });
  const project = { path: "@runa/suite", id };
  // Signed in and the project's page open before the suite starts: the page meets the run going.
  await signIn(page, "runa");
  await page.goto(`/${project.path}`);
  const failing = await proposeChange(token, project, "runs-failing", { "fail.txt": "marked\n" });
  const passing = await proposeChange(token, project, "runs-passing", { "ok.txt": "fine\n" });
  const sandboxRow = page
    .getByRole("table", { name: "Evaluation runs" })
    .getByRole("row")
    .filter({ hasText: "sandbox" });

  await page.goto(`/${project.path}/changes/${failing}`);
  // A mark on the window: a reload would drop it.
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  await expect(sandboxRow).toContainText(/queued|running/);
  await expect(page.getByRole("status").filter({ hasText: "Runs are going" })).toBeVisible();
  await expect(sandboxRow).toContainText("failed", { timeout: 60_000 });
  const link = sandboxRow.getByRole("link", { name: `test/suite.test.mjs:${ASSERT_LINE}` });
  await expect(link).toHaveAttribute("href", new RegExp(`/blob/[0-9a-f]{40}/test/suite\\.test\\.mjs#L${ASSERT_LINE}$`));
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  await expectAccessible(page);
  await link.click();
  await expect(page).toHaveURL(new RegExp(`#L${ASSERT_LINE}$`));
  await expect(page.locator(`#L${ASSERT_LINE}`)).toBeVisible();

  await page.goto(`/${project.path}/changes/${passing}`);
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  await expect(sandboxRow).toContainText("passed", { timeout: 60_000 });
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
});
