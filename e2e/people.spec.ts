import { expect, test, type Page } from "@playwright/test";
import { api, createProject, createUser, expectAccessible, screenshot, signIn } from "./support";

// People, not ids: an agent's change names the agent and its owner, names link to profiles, the
// profile page; the change's description, commits, a rename and per-file "viewed"; an issue's
// timeline with labels, an assignee set by username and closing. axe-core on every page.
test.describe.configure({ mode: "serial" });

const owner = "pia";
const other = "quinn";
const path = `@${owner}/atlas`;
let token = "";
let projectId = "";
let changeId = "";

async function check(page: Page, name: string) {
  await expectAccessible(page);
  await screenshot(page, name);
}

test("an agent's change names the agent and its owner, with its description, commits and a rename", async ({
  page,
}) => {
  token = await createUser(owner);
  await createUser(other);
  const maps = "north\nsouth\neast\nwest\n".repeat(5);
  projectId = await createProject(token, "atlas", { "README.md": "# atlas\n", "maps.txt": maps });
  const agent = await api<{ agent: { id: string }; token: string }>("POST", "/api/agents", {
    token,
    body: { name: "cartographer" },
  });
  expect(agent.status).toBe(201);
  const agentToken = agent.body.token;
  expect(
    (await api("POST", `/api/workspaces/${path}/workspaces`, { token: agentToken, body: { name: "renamer" } })).status,
  ).toBe(201);
  const message = "Rename maps to charts\n\nCharts is the **better** word.";
  expect(
    (
      await api("POST", "/api/workspaces/renamer/commit", {
        token: agentToken,
        body: { projectId, message, files: { "maps.txt": null, "charts.txt": maps, "legend.txt": "key\n" } },
      })
    ).status,
  ).toBe(201);
  const proposed = await api<{ change: { id: string } }>("POST", `/api/projects/${path}/changes`, {
    token: agentToken,
    body: { workspace: "renamer" },
  });
  expect(proposed.status).toBe(201);
  changeId = proposed.body.change.id;

  await signIn(page, owner);
  await page.goto(`/${path}/changes/${changeId}`);
  const byline = page.locator("main p").filter({ hasText: "cartographer" }).first();
  await expect(byline).toContainText("pia's agent cartographer");
  await expect(byline.getByRole("link", { name: owner })).toHaveAttribute("href", `/@${owner}`);
  await expect(page.locator("main")).not.toContainText(/\b(user|agent) [0-9a-f]{8}\b/);
  await expect(page.locator("section[aria-labelledby=description] strong")).toHaveText("better");
  const commits = page.getByRole("table", { name: "Commits" });
  await expect(commits.getByRole("row")).toHaveCount(2);
  await expect(commits).toContainText("Rename maps to charts");
  await expect(page.locator("details.file summary").filter({ hasText: "charts.txt" })).toContainText(
    "maps.txt → charts.txt",
  );
  await expect(page.locator("details.file summary").filter({ hasText: "charts.txt" })).toContainText("renamed");
  await check(page, "change-by-agent");
});

test("a file marked viewed is folded and stays so for its reader", async ({ page }) => {
  await signIn(page, owner);
  await page.goto(`/${path}/changes/${changeId}`);
  const legend = page.locator("details.file").filter({ has: page.locator("summary", { hasText: "legend.txt" }) });
  await expect(legend).toHaveAttribute("open", "");
  await page.getByRole("button", { name: "Viewed legend.txt" }).click();
  await expect(page.getByRole("button", { name: "Viewed legend.txt" })).toHaveAttribute("aria-pressed", "true");
  await page.reload();
  await expect(legend).not.toHaveAttribute("open", "");
  await expect(page.getByText("1 of 2 files on this page viewed.")).toBeVisible();
  await expect(
    page.locator("details.file").filter({ has: page.locator("summary", { hasText: "charts.txt" }) }),
  ).toHaveAttribute("open", "");
  await check(page, "change-viewed");
  await page.getByRole("button", { name: "Viewed legend.txt" }).click();
  await expect(page.getByRole("button", { name: "Viewed legend.txt" })).toHaveAttribute("aria-pressed", "false");
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("a Viewed button still marks its file and returns to it (it submits the page's one form)", async ({ page }) => {
    await signIn(page, owner);
    await page.goto(`/${path}/changes/${changeId}`);
    await page.getByRole("button", { name: "Viewed legend.txt" }).click();
    await expect(page.getByRole("button", { name: "Viewed legend.txt" })).toHaveAttribute("aria-pressed", "true");
    await expect(page).toHaveURL(/#file-\d+$/);
    await page.getByRole("button", { name: "Viewed legend.txt" }).click();
    await expect(page.getByRole("button", { name: "Viewed legend.txt" })).toHaveAttribute("aria-pressed", "false");
  });
});

test("an issue's timeline shows labels, the assignee set by username, and who closed it", async ({ page }) => {
  const opened = await api<{ issue: { number: number } }>("POST", `/api/projects/${path}/issues`, {
    token,
    body: { title: "Charts need a legend" },
  });
  expect(opened.status).toBe(201);
  // The assignee picker offers the people who can write.
  const granted = await api("PUT", `/api/projects/${path}/collaborators/${other}`, {
    token,
    body: { permission: "write" },
  });
  expect(granted.status).toBe(200);
  await signIn(page, owner);
  await page.goto(`/${path}/issues/${opened.body.issue.number}`);
  await page.getByLabel("Labels (comma-separated)").fill("docs, maps");
  await page.getByRole("button", { name: "Save labels" }).click();
  await page.getByLabel("Assignee").selectOption(other);
  await page.getByRole("button", { name: "Set assignee" }).click();
  await expect(page.getByText(`assigned to ${other}`)).toBeVisible();
  await page.getByRole("button", { name: "Close issue" }).click();
  const timeline = page.getByRole("list", { name: "Timeline" });
  await expect(timeline.getByRole("listitem")).toHaveCount(4);
  await expect(timeline.getByRole("listitem").nth(0)).toContainText(`${owner} opened this issue`);
  await expect(timeline.getByRole("listitem").nth(1)).toContainText("added docsmaps");
  await expect(timeline.getByRole("listitem").nth(2)).toContainText(`${owner} assigned ${other}`);
  await expect(timeline.getByRole("listitem").nth(3)).toContainText(`${owner} closed this issue`);
  await expect(timeline.getByRole("link", { name: other })).toHaveAttribute("href", `/@${other}`);
  await check(page, "issue-timeline");
});

test("a name leads to the profile: projects, organizations and recent activity", async ({ page }) => {
  await signIn(page, other);
  await page.goto(`/${path}/changes`);
  await page.getByRole("link", { name: owner, exact: true }).first().click();
  await expect(page).toHaveURL(new RegExp(`/@${owner}$`));
  await expect(page.getByRole("heading", { name: `@${owner}` })).toBeVisible();
  await expect(page.locator("section[aria-labelledby=projects]").getByRole("link", { name: path })).toBeVisible();
  await expect(page.locator("section[aria-labelledby=orgs]")).toContainText("No organizations you share.");
  await expect(page.locator("section[aria-labelledby=activity]")).toContainText(`${owner} closed issue #`);
  await expect(page).toHaveTitle(`@${owner} · svc-forge`);
  await check(page, "profile");
  await page.goto("/@nobody-by-this-name");
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
});
