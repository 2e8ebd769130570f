import { expect, test, type Page } from "@playwright/test";
import { api, createProject, createUser, expectAccessible, signIn } from "./support";
import { forEachViewport, type Viewport } from "./viewports";

// Issue 44 items 2, 3 and 5: the project page (description, a language bar, icons, last commit per
// entry, clone URL with copy, highlighted README code, a wide table that scrolls), the issues list and page (pickers,
// filters in the address) and the settings (rename, description, the policy page), at 1280 and 390
// pixels in light and dark, axe on each. Screenshots of each page, desktop light and phone dark,
// go to docs/screenshots/.
test.describe.configure({ mode: "serial" });

const owner = "prisca";
const helper = "soren";
let token = "";
let path = `@${owner}/orbit`;

const README = [
  "# Orbit",
  "",
  "```ts",
  'const greeting: string = "hello";',
  "```",
  "",
  "| configuration key | what it does | default value | allowed values |",
  "|---|---|---|---|",
  "| `orbit.interval` | how often the satellite reports its position to the ground | 60 | 1-3600 |",
  "",
].join("\n");

/** Axe, nothing wider than the screen, and on two of the four a screenshot for docs/screenshots. */
async function check(page: Page, viewport: Viewport, name: string) {
  await expectAccessible(page);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
  if (viewport.name === "desktop-light" || viewport.name === "phone-dark")
    await page.screenshot({ path: `docs/screenshots/${name}-${viewport.name}.png` });
}

test("the project page: description, icons, last commits, clone URL with copy, highlighted README", async ({
  page,
}) => {
  token = await createUser(owner);
  await createUser(helper);
  await createProject(token, "orbit", {
    "README.md": README,
    "src/main.ts": "export const x = 1;\n".repeat(3),
    "scripts/launch.sh": "echo go\n",
  });
  const described = await api("PATCH", `/api/projects/${path}`, {
    token,
    body: { description: "Tracks the satellites we launch" },
  });
  expect(described.status).toBe(200);
  await signIn(page, owner);
  await forEachViewport(page, async (viewport) => {
    await page.goto(`/${path}`);
    await expect(page.getByText("Tracks the satellites we launch")).toBeVisible();
    const files = page.getByRole("table", { name: "Files" });
    await expect(files.locator("svg.entry-icon.dir")).toHaveCount(2);
    await expect(files.getByRole("link", { name: "Initial commit" }).first()).toHaveAttribute("href", /\/commit\//);
    await expect(page.getByRole("textbox", { name: "Clone URL" })).toHaveValue(new RegExp(`/${path}\\.git$`));
    await expect(page.getByRole("button", { name: "Copy the clone URL" })).toBeVisible();
    // The language bar: its shares as text (60 bytes of TypeScript, 8 of shell).
    const languages = page.getByRole("region", { name: "Languages" });
    await expect(languages.getByRole("listitem")).toHaveText(["TypeScript 88.2%", "Shell 11.8%"]);
    await expect(page.locator(".markdown pre.code span.k").first()).toHaveText("const");
    // The wide table scrolls in its box; its words stay whole.
    const table = page.locator(".markdown table");
    expect(await table.evaluate((el) => getComputedStyle(el).overflowWrap)).toBe("normal");
    await check(page, viewport, "project");
  });
});

test("issues: pickers for labels and assignee, filters that combine in the address", async ({ page }) => {
  const granted = await api("PUT", `/api/projects/${path}/collaborators/${helper}`, {
    token,
    body: { permission: "write" },
  });
  expect(granted.status).toBe(200);
  for (const title of ["Orbit decays too fast", "Telemetry gaps"])
    expect((await api("POST", `/api/projects/${path}/issues`, { token, body: { title } })).status).toBe(201);
  await signIn(page, owner);
  await page.goto(`/${path}/issues/1`);
  await page.getByLabel("New labels (comma-separated)").fill("bug, physics");
  await page.getByRole("button", { name: "Save labels" }).click();
  await expect(page.getByRole("checkbox", { name: "bug" })).toBeChecked();
  await page.getByLabel("Assignee", { exact: true }).selectOption(helper);
  await page.getByRole("button", { name: "Set assignee" }).click();
  await expect(page.getByText(`assigned to ${helper}`)).toBeVisible();
  await page.getByRole("checkbox", { name: "physics" }).uncheck();
  await page.getByRole("button", { name: "Save labels" }).click();
  await expect(page.getByRole("checkbox", { name: "physics" })).not.toBeChecked();
  await page.getByLabel("Comment (Markdown)").fill("Seen twice this week.");
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.getByText("Seen twice this week.")).toBeVisible();

  await page.goto(`/${path}/issues`);
  await page.getByLabel("Label", { exact: true }).selectOption("bug");
  await page.getByLabel("Assignee", { exact: true }).selectOption(helper);
  await page.getByLabel("Author", { exact: true }).fill(owner);
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(new RegExp(`label=bug.*assignee=${helper}.*author=${owner}`));
  const list = page.getByRole("table", { name: "Issues" });
  await expect(list.getByRole("row")).toHaveCount(2);
  await expect(list.getByRole("link", { name: "Orbit decays too fast" })).toBeVisible();
  await expect(list.getByLabel("1 comment", { exact: true })).toBeVisible();
  const filtered = page.url();
  await forEachViewport(page, async (viewport) => {
    await page.goto(filtered);
    await expect(list.getByRole("link", { name: helper })).toBeVisible();
    await check(page, viewport, "issues");
    await page.goto(`/${path}/issues/1`);
    await check(page, viewport, "issue");
  });
  await page.goto(`/${path}/issues?assignee=nobody-here`);
  await expect(page.getByText("No issues match.")).toBeVisible();
});

test("settings: description, rename (the page follows), and the policy page commits only a policy that parses", async ({
  page,
}) => {
  await signIn(page, owner);
  await page.goto(`/${path}/settings/policy`);
  await expect(page.getByText("the defaults apply")).toBeVisible();
  await page.getByLabel(".svc/policy.yml (YAML)").fill("requiredApprovals: [\n");
  await page.getByRole("button", { name: "Commit policy" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Refused" })).toContainText("not valid YAML");
  await page.getByLabel(".svc/policy.yml (YAML)").fill("requiredApprovals: 1\nmerge:\n  autoQueue: true\n");
  await page.getByRole("button", { name: "Commit policy" }).click();
  const summary = page.getByRole("definition").first();
  await expect(summary).toHaveText("1");
  await expect(page.getByText("auto-queue yes")).toBeVisible();

  await page.goto(`/${path}/settings`);
  await page.getByLabel("Description", { exact: true }).fill("Tracks every satellite");
  await page.getByLabel("Name", { exact: true }).fill("orbiter");
  await page.getByRole("button", { name: "Save" }).click();
  path = `@${owner}/orbiter`;
  await expect(page).toHaveURL(new RegExp(`/${path}/settings$`));
  await expect(page.getByLabel("Description", { exact: true })).toHaveValue("Tracks every satellite");
  await forEachViewport(page, async (viewport) => {
    await page.goto(`/${path}/settings`);
    await check(page, viewport, "settings");
    await page.goto(`/${path}/settings/policy`);
    await check(page, viewport, "policy");
  });
  await page.goto(`/${path}`);
  await expect(page.getByText("Tracks every satellite")).toBeVisible();
  await expect(
    page.getByRole("table", { name: "Files" }).getByRole("link", { name: "Update .svc/policy.yml" }),
  ).toBeVisible();
});
