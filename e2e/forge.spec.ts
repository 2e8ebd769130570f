import { expect, test, type Page } from "@playwright/test";
import { api, expectAccessible, screenshot, signIn, signOut } from "./support";

// One story, in order: alice signs in, creates a project, browses it, opens an issue, makes a
// token on the token page and proposes a change through the API with it, reviews the change with
// an inline comment and merges it; rita, a reader, sees no merge button and gets the 403 and 404
// pages; anonymous callers are sent to /login. axe-core runs on every page visited.
test.describe.configure({ mode: "serial" });

const project = "/@alice/demo";
let token = "";
let changeId = "";

async function visit(page: Page, url: string, name: string) {
  await page.goto(url);
  await expectAccessible(page);
  await screenshot(page, name);
}

test("the home page and sign-in page are accessible and send the security headers", async ({ page }) => {
  const response = await page.goto("/");
  const headers = response!.headers();
  const csp = headers["content-security-policy"];
  const scripts = csp.split(";").find((directive) => directive.trim().startsWith("script-src"))!;
  expect(scripts).toContain("'nonce-");
  expect(scripts).not.toContain("unsafe-inline");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBeTruthy();
  await expectAccessible(page);
  await screenshot(page, "home-signed-out");
  await visit(page, "/login", "login");
});

test("alice signs in, creates a project and browses its files and commits", async ({ page }) => {
  await signIn(page, "alice");
  await expectAccessible(page);
  await page.getByLabel("Name").fill("demo");
  await page.getByLabel("Visibility").selectOption("public");
  await page.getByLabel("Start with example files").check();
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(new RegExp(`${project}$`));
  await expect(page.getByRole("heading", { name: "@alice/demo" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Files" })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "project");

  await expect(page).toHaveTitle("@alice/demo · svc-forge");
  const readme = page.getByRole("table", { name: "Files" }).getByRole("link", { name: /^README/i });
  await readme.click();
  await expect(page.getByLabel("README.md").getByRole("heading", { name: "demo" })).toBeVisible();
  await page.getByRole("link", { name: "Source" }).click();
  await expect(page.locator("#L1")).toBeVisible();
  await expect(page.locator('a[href="#L1"]')).toHaveText("1");
  await expectAccessible(page);
  await screenshot(page, "file");

  await visit(page, `${project}/commits`, "commits");
  await expect(page.getByRole("table", { name: "Commits" }).getByRole("row")).not.toHaveCount(1);
});

test("alice opens an issue whose Markdown cannot inject HTML, and comments on it", async ({ page }) => {
  let dialogs = 0;
  page.on("dialog", (dialog) => {
    dialogs++;
    void dialog.dismiss();
  });
  await signIn(page, "alice");
  await visit(page, `${project}/issues`, "issues-empty");
  await page.getByRole("link", { name: "New issue" }).click();
  await expectAccessible(page);
  await page.getByLabel("Title").fill("The README needs a usage section");
  await page
    .getByLabel("Description (Markdown)")
    .fill('It should say **how** to start.\n\n<script>alert("x")</script><img src=x onerror="alert(1)">');
  await page.getByRole("button", { name: "Open issue" }).click();
  await expect(page).toHaveURL(new RegExp(`${project}/issues/1$`));
  const description = page.getByLabel("Description");
  await expect(description.locator("strong")).toHaveText("how");
  await expect(description.locator("script, img")).toHaveCount(0);

  await page.getByLabel("Comment (Markdown)").fill("I can write it.");
  await page.getByRole("button", { name: "Comment", exact: true }).click();
  await expect(page.getByRole("article", { name: "Comment by alice" })).toContainText("I can write it.");
  await page.getByLabel("Labels (comma-separated)").fill("docs, good first issue");
  await page.getByRole("button", { name: "Save labels" }).click();
  await page.getByRole("button", { name: "Assign to me" }).click();
  await expect(page.getByText("assigned to alice")).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "issue");
  await page.getByRole("link", { name: "Label docs: show issues with it" }).first().click();
  await expect(page).toHaveURL(/label=docs/);
  await expect(page.getByRole("link", { name: "The README needs a usage section" })).toBeVisible();
  await expect(page.getByRole("link", { name: "1 open" })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "issues-by-label");
  expect(dialogs).toBe(0);

  await page.goto(`${project}/issues?q=usage`);
  await expect(page.getByRole("link", { name: "The README needs a usage section" })).toBeVisible();
});

test("alice creates a token on the token page (shown once) and proposes a change with it", async ({ page }) => {
  await signIn(page, "alice");
  await visit(page, "/settings/tokens", "tokens-empty");
  await page.getByLabel("Name").fill("e2e");
  await page.getByLabel("Scope").selectOption("read_write");
  await page.getByRole("button", { name: "Create token" }).click();
  const shown = page.getByTestId("new-secret");
  await expect(shown).toHaveText(/^svc_/);
  token = (await shown.textContent())!.trim();
  await expect(page.getByRole("table", { name: "Tokens" })).toContainText("e2e");
  await expectAccessible(page);
  await page.reload();
  await expect(page.getByTestId("new-secret")).toHaveCount(0);
  await expect(page.getByText(token)).toHaveCount(0);

  const { body: projectBody } = await api<{ id: string }>("GET", "/api/projects/@alice/demo", { token });
  expect((await api("POST", "/api/workspaces/@alice/demo/workspaces", { token, body: { name: "usage" } })).status).toBe(
    201,
  );
  const files = { "USAGE.md": "# Usage\n\nRun `npm start`.\n", "src/app.txt": "one\ntwo\nthree\n" };
  expect(
    (
      await api("POST", "/api/workspaces/usage/commit", {
        token,
        body: { projectId: projectBody.id, message: "Add usage", files },
      })
    ).status,
  ).toBe(201);
  const created = await api<{ change: { id: string } }>("POST", "/api/projects/@alice/demo/changes", {
    token,
    body: { workspace: "usage" },
  });
  expect(created.status).toBe(201);
  changeId = created.body.change.id;
});

test("alice reviews the change with an inline comment, resolves the thread and merges it", async ({ page }) => {
  await signIn(page, "alice");
  await visit(page, `${project}/changes`, "changes");
  await page.getByRole("link", { name: /usage/ }).first().click();
  await expect(page).toHaveURL(new RegExp(`${project}/changes/${changeId}`));
  const diff = page.getByRole("group", { name: "Diff of USAGE.md" });
  await expect(diff).toContainText("# Usage");
  // An added line's mark is drawn beside it (not colour alone), out of the copied text.
  expect(
    await diff
      .locator("p.a")
      .first()
      .evaluate((line) => getComputedStyle(line, "::before").content),
  ).toBe('"+"');
  await expectAccessible(page);

  // A line number opens the comment form on its line (the new side's number on an added line).
  await diff.locator('a[id$="n3"]').click();
  await page.getByLabel("Comment on line 3 of USAGE.md").fill("Say which Node version.");
  await page.getByRole("button", { name: "Add comment" }).click();
  const thread = page.getByRole("article", { name: "Thread by alice" });
  await expect(diff.getByRole("article", { name: "Thread by alice" })).toContainText("Say which Node version.");
  await thread.getByLabel("Reply").fill("Node 20.");
  await thread.getByRole("button", { name: "Reply" }).click();
  await expect(page.getByRole("article", { name: "Thread by alice" })).toContainText("Node 20.");
  await page.getByRole("button", { name: "Resolve thread" }).click();
  // A resolved thread is folded to one line that opens it.
  await expect(page.getByRole("button", { name: "Reopen thread" })).toBeHidden();
  await page.getByText("Resolved thread by alice").click();
  await expect(page.getByRole("button", { name: "Reopen thread" })).toBeVisible();

  // The review form starts on Comment; approving is a deliberate choice.
  await expect(page.getByLabel("Comment", { exact: true }).and(page.getByRole("radio"))).toBeChecked();
  await page.getByLabel("Approve").check();
  await page.getByRole("textbox", { name: "Comment", exact: true }).first().fill("Looks right.");
  await page.getByRole("button", { name: "Submit review" }).click();
  await expect(page.getByRole("region", { name: "Reviews" })).toContainText("Looks right.");
  await expectAccessible(page);
  await screenshot(page, "change-reviewed");

  await page.getByLabel("Strategy").selectOption("squash");
  await page.getByRole("button", { name: "Merge", exact: true }).click();
  await expect(page.locator(".badge").filter({ hasText: "merged" }).first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Merge", exact: true })).toHaveCount(0);
  await screenshot(page, "change-merged");
  await visit(page, `${project}/blob/main/USAGE.md`, "merged-file");
});

test("rita, a reader, sees no merge button and no settings; private projects are 404 pages to her", async ({
  page,
}) => {
  expect((await api("POST", "/api/projects", { token, body: { name: "hidden", visibility: "private" } })).status).toBe(
    201,
  );
  const ws = await api("POST", "/api/workspaces/@alice/demo/workspaces", { token, body: { name: "second" } });
  expect(ws.status).toBe(201);
  const { body: projectBody } = await api<{ id: string }>("GET", "/api/projects/@alice/demo", { token });
  await api("POST", "/api/workspaces/second/commit", {
    token,
    body: { projectId: projectBody.id, message: "Second", files: { "second.txt": "2\n" } },
  });
  const open = await api<{ change: { id: string } }>("POST", "/api/projects/@alice/demo/changes", {
    token,
    body: { workspace: "second" },
  });
  expect(open.status).toBe(201);

  await signIn(page, "rita");
  await visit(page, `${project}/changes/${open.body.change.id}`, "change-as-reader");
  await expect(page.getByText("second.txt").first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Merge", exact: true })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Submit review" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Settings" })).toHaveCount(0);

  const settings = await page.goto(`${project}/settings`);
  expect(settings!.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Forbidden" })).toBeVisible();
  await expectAccessible(page);

  const hidden = await page.goto("/@alice/hidden");
  expect(hidden!.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
  await expectAccessible(page);
  await signOut(page);
});

test("anonymous callers are sent to /login from pages that need a user", async ({ page }) => {
  await page.goto("/settings/tokens");
  await expect(page).toHaveURL(/\/login$/);
  await page.goto(`${project}/settings`);
  await expect(page).toHaveURL(/\/login$/);
  await visit(page, project, "project-anonymous");
});
