import { expect, test, type Page } from "@playwright/test";
import { api, createProject, createUser, expectAccessible, proposeChange, screenshot, signIn } from "./support";

// Reading code in the browser: "Merge when ready" lands a change through the merge queue, then
// the commit page (from the log, then a parent), blame and raw of a file, code search, the
// branches, tags and compare pages. axe-core runs on every page; each fits 390 px.
test.describe.configure({ mode: "serial" });

const user = "reed";
const project = `/@${user}/shelf`;
let token = "";

async function check(page: Page, name: string) {
  await expectAccessible(page);
  await screenshot(page, name);
}

test("a change queued with Merge when ready is landed by the queue", async ({ page }) => {
  token = await createUser(user);
  const id = await createProject(token, "shelf", {
    "README.md": "# shelf\n",
    "src/books.txt": "dune\nsolaris\nneuromancer\n",
  });
  expect((await api("POST", `/api/projects${project}/branches`, { token, body: { name: "topic" } })).status).toBe(201);
  expect(
    (await api("POST", `/api/projects${project}/tags`, { token, body: { name: "v1", message: "First shelf" } })).status,
  ).toBe(201);
  const changeId = await proposeChange(token, { path: `@${user}/shelf`, id }, "more-books", {
    "src/books.txt": "dune\nsolaris\nneuromancer\nhyperion\n",
  });

  await signIn(page, user);
  await page.goto(`${project}/changes/${changeId}`);
  await page.getByRole("button", { name: "Merge when ready" }).click();
  await expect(
    page
      .getByRole("link", { name: "merge queue" })
      .or(page.locator(".badge").filter({ hasText: "merged" }))
      .first(),
  ).toBeVisible();
  await check(page, "change-queued");
  await expect(async () => {
    await page.reload();
    await expect(page.locator(".badge").filter({ hasText: "merged" }).first()).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 90_000, intervals: [1_000, 2_000] });
  await page.getByRole("link", { name: "Queue", exact: true }).click();
  await expect(page).toHaveTitle(`Merge queue · @${user}/shelf · svc-forge`);
  await check(page, "queue");
});

test("the commit page opens from the log and follows a parent", async ({ page }) => {
  await signIn(page, user);
  await page.goto(`${project}/commits`);
  const rows = page.getByRole("table", { name: "Commits" }).getByRole("row");
  await expect(rows).not.toHaveCount(2);
  await rows
    .nth(1)
    .getByRole("link", { name: /^[0-9a-f]{12}$/ })
    .click();
  await expect(page).toHaveURL(new RegExp(`${project}/commit/[0-9a-f]{40}$`));
  await expect(page).toHaveTitle(/^Commit [0-9a-f]{12} · /);
  await expect(page.getByRole("group", { name: "Diff of src/books.txt" })).toContainText("hyperion");
  await check(page, "commit");
  const parent = page
    .getByRole("paragraph")
    .filter({ hasText: "parent" })
    .getByRole("link", { name: /^[0-9a-f]{7,40}$/ })
    .first();
  const parentSha = (await parent.textContent())!.trim();
  await parent.click();
  await expect(page).toHaveURL(new RegExp(`${project}/commit/${parentSha}`));
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectAccessible(page);
});

test("a file shows Raw, Blame and History; blame names the commits", async ({ page, request }) => {
  await signIn(page, user);
  await page.goto(`${project}/blob/main/src/books.txt`);
  const raw = await page.getByRole("link", { name: "Raw", exact: true }).getAttribute("href");
  expect(raw).toBe(`/api/projects${project}/raw?ref=main&path=src%2Fbooks.txt`);
  const rawAnswer = await request.get(raw!);
  expect(rawAnswer.status()).toBe(200);
  expect(await rawAnswer.text()).toBe("dune\nsolaris\nneuromancer\nhyperion\n");
  await expect(page.getByRole("link", { name: "History" })).toHaveAttribute("href", `${project}/commits/main`);
  await page.getByRole("link", { name: "Blame", exact: true }).click();
  await expect(page).toHaveTitle(`Blame src/books.txt at main · @${user}/shelf · svc-forge`);
  const blame = page.getByRole("table", { name: "Blame of src/books.txt" });
  await expect(blame.locator("#L4")).toContainText("hyperion");
  await expect(blame.locator("#L4 a[href*='/commit/']")).toHaveCount(1);
  await check(page, "blame");

  // The file's lines came once, in the page's HTML (server-html.tsx): back in the browser's history,
  // the router renders the page from its own copy, and the lines are there again.
  await page.goBack();
  await expect(page).toHaveTitle(/^src\/books\.txt/);
  await expect(page.getByRole("group", { name: "Contents of src/books.txt" })).toContainText("neuromancer");
  await page.goForward();
  await page.goBack();
  await expect(page.getByRole("group", { name: "Contents of src/books.txt" })).toContainText("hyperion");
});

test("the search box finds a line and links to it", async ({ page }) => {
  await signIn(page, user);
  await page.goto(project);
  await page.getByLabel("Search the code").fill("solaris");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveTitle(`Search · @${user}/shelf · svc-forge`);
  await expect(page.getByText("1 match at")).toBeVisible();
  await check(page, "search");
  await page.getByRole("table", { name: "Matches" }).getByRole("link", { name: "src/books.txt" }).click();
  await expect(page).toHaveURL(new RegExp(`${project}/blob/main/src/books.txt#L2$`));
});

test("branches, tags and compare", async ({ page }) => {
  await signIn(page, user);
  await page.goto(project);
  await page.getByRole("link", { name: "Branches" }).click();
  await expect(page).toHaveTitle(`Branches · @${user}/shelf · svc-forge`);
  const topic = page.getByRole("table", { name: "Branches" }).getByRole("row").filter({ hasText: "topic" });
  // topic stayed where main was before the queue landed the change: behind by at least one.
  await expect(topic.getByRole("cell").nth(2)).not.toHaveText("0");
  await expect(topic.getByRole("cell").nth(3)).toHaveText("0");
  await check(page, "branches");

  await page.goto(`${project}/tags`);
  await expect(page).toHaveTitle(`Tags · @${user}/shelf · svc-forge`);
  await expect(page.getByRole("table", { name: "Tags" })).toContainText("First shelf");
  await check(page, "tags");

  await page.goto(`${project}/compare/topic...main`);
  await expect(page).toHaveTitle(`Compare topic...main · @${user}/shelf · svc-forge`);
  await expect(page.getByRole("group", { name: "Diff of src/books.txt" })).toContainText("hyperion");
  await expect(page.getByRole("table", { name: "Commits" }).getByRole("row")).not.toHaveCount(1);
  await check(page, "compare");
});
