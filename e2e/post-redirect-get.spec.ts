import { expect, test } from "@playwright/test";
import { api, createProject, createUser, signIn } from "./support";

// Post/Redirect/Get: a create form lands on a page fetched with GET, so reloading it creates
// nothing; the one-time secret comes as a flash that the reload no longer shows. A save that stays
// on its page re-renders the page in place instead, keeping what the reader typed in its other forms.
test("creating a token, then reloading, leaves one token and shows its plaintext once", async ({ page }) => {
  await createUser("petra");
  await signIn(page, "petra");
  await page.goto("/settings/tokens");
  await page.getByLabel("Name").fill("once");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page).toHaveURL(/\/settings\/tokens$/);
  const secret = (await page.getByTestId("new-secret").textContent())!.trim();
  expect(secret).toMatch(/^svc_/);
  const rows = page.getByRole("table", { name: "Tokens" }).getByRole("row").filter({ hasText: "once" });
  await expect(rows).toHaveCount(1);

  await page.reload();
  await expect(rows).toHaveCount(1);
  await expect(page.getByTestId("new-secret")).toHaveCount(0);
  await expect(page.getByText(secret)).toHaveCount(0);
  // The API with the browser's session (that route takes no bearer token).
  const listed = (await (await page.request.get("/api/users/me/tokens")).json()) as { tokens: Array<{ name: string }> };
  expect(listed.tokens.filter((token) => token.name === "once")).toHaveLength(1);
});

test("creating a webhook lists it at once; reloading leaves one webhook and hides its secret", async ({ page }) => {
  const token = await createUser("wendy");
  await createProject(token, "hooks", { "a.txt": "a\n" });
  await signIn(page, "wendy");
  await page.goto("/@wendy/hooks/settings/webhooks");
  await page.getByLabel("Payload URL").fill("https://93.184.215.14/in");
  await page.getByRole("button", { name: "Add webhook" }).click();
  await expect(page).toHaveURL(/\/@wendy\/hooks\/settings\/webhooks$/);
  await expect(page.getByTestId("new-secret")).toBeVisible();
  const hooks = page.getByRole("article", { name: "Webhook to https://93.184.215.14/in" });
  await expect(hooks).toHaveCount(1);

  await page.reload();
  await expect(hooks).toHaveCount(1);
  await expect(page.getByTestId("new-secret")).toHaveCount(0);
  const listed = await api<{ webhooks: unknown[] }>("GET", "/api/projects/@wendy/hooks/webhooks", { token });
  expect(listed.body.webhooks).toHaveLength(1);
});

test("a save that stays on its page keeps what the reader typed meanwhile in another form", async ({ page }) => {
  const token = await createUser("tilda");
  await createProject(token, "notes", { "a.txt": "a\n" });
  const opened = await api<{ issue: { number: number } }>("POST", "/api/projects/@tilda/notes/issues", {
    token,
    body: { title: "Typed text survives" },
  });
  const issuePage = `/@tilda/notes/issues/${opened.body.issue.number}`;
  await signIn(page, "tilda");
  await page.goto(issuePage);
  // The labels' save is held in the browser until the comment is typed, as on a busy server.
  let typed = () => {};
  const commentTyped = new Promise<void>((resolve) => (typed = resolve));
  await page.route(`**${issuePage}`, async (route) => {
    if (route.request().method() === "POST") await commentTyped;
    await route.continue();
  });
  await page.getByLabel("Labels (comma-separated)").fill("docs");
  await page.getByRole("button", { name: "Save labels" }).click();
  await page.getByLabel("Comment (Markdown)").fill("half a thought");
  typed();
  await expect(page.getByRole("list", { name: "Timeline" }).getByRole("listitem")).toHaveCount(2);
  await expect(page.getByRole("checkbox", { name: "docs" })).toBeChecked();
  await expect(page.getByLabel("Comment (Markdown)")).toHaveValue("half a thought");
  await expect(page).toHaveURL(new RegExp(`${issuePage}$`));
  // The page was answered in place, not by a redirect: reloading it fetches it, and saves nothing again.
  await page.reload();
  await expect(page.getByRole("list", { name: "Timeline" }).getByRole("listitem")).toHaveCount(2);
  await expect(page.getByRole("checkbox", { name: "docs" })).toBeChecked();
});
