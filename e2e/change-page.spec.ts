import { expect, test, type Page } from "@playwright/test";
import { createProject, createUser, expectAccessible, proposeChange, signIn } from "./support";
import { forEachViewport } from "./viewports";

// The change page (issue 44): section tabs, a jump list of files with +/- and viewed marks, context
// expanded around hunks without script, line numbers reached by the keyboard with a visible focus
// ring, "Viewed" inside each file's header and the review form after the diff; at 1280 and 390
// pixels, light and dark, axe-core on each. Screenshots for docs/screenshots.
test.describe.configure({ mode: "serial" });

const owner = "rhea";
const path = `@${owner}/ledger`;
const long = Array.from({ length: 100 }, (_, i) => `entry ${i + 1}`);
let changeId = "";

/** The file long.txt is the second of the diff (a.txt, long.txt, notes/new.md): its lines are `f1n<line>`. */
const lineLink = (page: Page, line: number) => page.locator(`#f1n${line}`);

test("the change page reads in sections with a jump list, keyboard-reachable lines and the review after the diff", async ({
  page,
}) => {
  const token = await createUser(owner);
  const projectId = await createProject(token, "ledger", { "a.txt": "a\n", "long.txt": long.join("\n") + "\n" });
  changeId = await proposeChange(token, { path, id: projectId }, "tidy", {
    "a.txt": "A\n",
    "long.txt": long.map((line, i) => (i === 29 || i === 69 ? `${line} settled` : line)).join("\n") + "\n",
    "notes/new.md": "# Notes\n",
  });
  await signIn(page, owner);

  await forEachViewport(page, async ({ name, width }) => {
    await page.goto(`/${path}/changes/${changeId}`);
    const sections = page.getByRole("navigation", { name: "Sections of this change" });
    await expect(sections.getByRole("link", { name: /Files/ })).toHaveAttribute("href", "#files");
    const jump = page.getByRole("navigation", { name: "Files on this page" });
    await expect(jump.getByRole("listitem").filter({ hasText: "long.txt" })).toContainText("+2 −2");
    await expect(jump.getByRole("link", { name: "long.txt" })).toHaveAttribute("href", "#file-1");

    // "Viewed" sits in the file's header: within its summary's band, at its right.
    const summary = page.locator("#file-1 > summary");
    const header = (await summary.boundingBox())!;
    const viewed = (await page.getByRole("button", { name: "Viewed long.txt" }).boundingBox())!;
    expect(viewed.y).toBeGreaterThanOrEqual(header.y);
    expect(viewed.y + viewed.height).toBeLessThanOrEqual(header.y + header.height);
    expect(viewed.x).toBeGreaterThan(header.x + header.width / 2);

    // The review form follows the diff.
    const after = await page.evaluate(() => {
      const files = document.getElementById("files")!;
      const review = document.getElementById("review-form")!;
      return Boolean(files.compareDocumentPosition(review) & Node.DOCUMENT_POSITION_FOLLOWING);
    });
    expect(after).toBe(true);

    // Tab from a hunk's "more lines" link reaches its first line's number, drawn with a focus ring.
    await page.getByRole("link", { name: "20 more lines of context in long.txt" }).first().focus();
    await page.keyboard.press("Tab");
    await expect(lineLink(page, 27)).toBeFocused();
    expect(await lineLink(page, 27).evaluate((link) => getComputedStyle(link).outlineStyle)).toBe("solid");
    expect(await lineLink(page, 27).getAttribute("tabindex")).toBeNull();

    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    await expectAccessible(page);
    if (name === "desktop-light" || name === "phone-dark") {
      await page.locator("#files").evaluate((heading) => heading.scrollIntoView());
      await page.screenshot({ path: `docs/screenshots/change-page-${name}.png` });
    }
  });
});

test("a file's context expands above and below its hunks without script, and stays expanded when marked viewed", async ({
  page,
}) => {
  await signIn(page, owner);
  await page.goto(`/${path}/changes/${changeId}`);
  await expect(lineLink(page, 10)).toHaveCount(0);
  await expect(page.locator("#file-1 p.h")).toHaveCount(2);
  await page.getByRole("link", { name: "20 more lines of context in long.txt" }).first().click();
  await expect(page).toHaveURL(/expand=1%3A23#file-1$/);
  // 23 lines around lines 30 and 70: one hunk from line 7 to 93.
  await expect(page.locator("#file-1 p.h")).toHaveCount(1);
  await expect(lineLink(page, 7)).toBeVisible();
  await expect(lineLink(page, 93)).toBeAttached();
  await expect(lineLink(page, 6)).toHaveCount(0);
  await expectAccessible(page);

  await page.getByRole("button", { name: "Viewed long.txt" }).click();
  await expect(page.getByRole("button", { name: "Viewed long.txt" })).toHaveAttribute("aria-pressed", "true");
  await expect(page).toHaveURL(/expand=1%3A23/);
  const jump = page.getByRole("navigation", { name: "Files on this page" });
  await expect(jump.getByRole("listitem").filter({ hasText: "long.txt" })).toContainText("viewed");
  await page.getByRole("button", { name: "Viewed long.txt" }).click();
  await expect(page.getByRole("button", { name: "Viewed long.txt" })).toHaveAttribute("aria-pressed", "false");
});
