import { expect, test } from "@playwright/test";
import { api, baseURL, createProject, createUser, expectAccessible, proposeChange, signIn } from "./support";

// What a visitor found from outside: GitHub's permalinks (a full commit id in /blob and /tree),
// 404 pages as whole pages (lang, one <main>, a title that says so, with JavaScript or without),
// /favicon.ico, the change page's list of files, and a merge box that knows the policy's approvals.
test.describe.configure({ mode: "serial" });

const owner = "outsider";
const project = `/@${owner}/perma`;
let token = "";
let first = "";

test("the data: a project whose README and src/app.ts changed after their first commit", async () => {
  token = await createUser(owner);
  const id = await createProject(token, "perma", {
    "README.md": "# First\n",
    "src/app.ts": "export const v = 1;\n",
    ".svc/policy.yml": "requiredApprovals: 1\n",
  });
  const branches = await api<{ branches: Array<{ name: string; oid: string }> }>(
    "GET",
    `/api/projects${project}/branches`,
    { token },
  );
  first = branches.body.branches.find((branch) => branch.name === "main")!.oid;
  const change = await proposeChange(token, { path: `@${owner}/perma`, id }, "second", {
    "README.md": "# Second\n",
    "src/app.ts": "export const v = 2;\n",
    "src/new.ts": "export {};\n",
  });
  const other = await createUser("outsider-reviewer");
  expect(
    (
      await api("PUT", `/api/projects${project}/collaborators/outsider-reviewer`, {
        token,
        body: { permission: "write" },
      })
    ).status,
  ).toBeLessThan(300);
  expect(
    (await api("POST", `/api/changes/${change}/reviews`, { token: other, body: { verdict: "approve" } })).status,
  ).toBe(201);
  expect((await api("POST", `/api/changes/${change}/merge`, { token })).status).toBe(200);
});

test("a file and a folder at a full commit id show them as they were then", async ({ page }) => {
  const blob = await page.goto(`${project}/blob/${first}/src/app.ts`);
  expect(blob?.status()).toBe(200);
  await expect(page.getByRole("group", { name: "Contents of src/app.ts" })).toContainText("export const v = 1;");
  const tree = await page.goto(`${project}/tree/${first}/src`);
  expect(tree?.status()).toBe(200);
  const files = page.getByRole("table", { name: "Files" });
  await expect(files).toContainText("app.ts");
  await expect(files).not.toContainText("new.ts");
  const root = await page.goto(`${project}/tree/${first}`);
  expect(root?.status()).toBe(200);
  await expect(page.getByRole("region", { name: "README.md" })).toContainText("First");
  await expectAccessible(page);
  // The link to a file keeps the commit.
  await page.getByRole("link", { name: "src/" }).click();
  await page.getByRole("link", { name: "app.ts" }).click();
  await expect(page).toHaveURL(new RegExp(`/blob/${first}/src/app.ts$`));
  expect((await page.goto(`${project}/blob/${"f".repeat(40)}/src/app.ts`))?.status()).toBe(404);
});

test("a 404 is a whole page: lang, one <main>, a title that says not found, with JavaScript and without", async ({
  page,
}) => {
  await signIn(page, owner);
  for (const url of [
    `/@${owner}/no-such-project`,
    "/@nobody-at-all",
    `${project}/blob/main/missing.txt`,
    `${project}/issues/999`,
    "/orgs/no-such-org",
    "/no/such/page/at/all",
  ]) {
    const raw = await page.request.get(url, { maxRedirects: 0 });
    expect(raw.status(), url).toBe(404);
    const html = await raw.text();
    expect(html, url).toMatch(/<html[^>]* lang="en"/);
    expect(html.match(/<main[ >]/g), url).toHaveLength(1);
    expect(html, url).toMatch(/<title>[^<]*Not found[^<]*<\/title>/i);
    expect((await page.goto(url))?.status(), url).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    await expect(page.locator("main")).toHaveCount(1);
    await expect(page.locator("html")).toHaveAttribute("lang", "en");
    expect(await page.title(), url).toMatch(/not found/i);
  }
  await expectAccessible(page);
});

test("GET /favicon.ico answers an icon", async ({ request }) => {
  const res = await request.get(`${baseURL}/favicon.ico`);
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toMatch(/^image\//);
  expect((await res.body()).subarray(0, 4)).toEqual(Buffer.from([0, 0, 1, 0]));
});

test("the change page lists its files, each a link to its diff; the merge box knows the policy's required approvals", async ({
  page,
}) => {
  const id = (await api<{ id: string }>("GET", `/api/projects${project}`, { token })).body.id;
  const change = await proposeChange(token, { path: `@${owner}/perma`, id }, "third", {
    "a.txt": "a\n",
    "src/app.ts": "export const v = 3;\n",
  });
  await signIn(page, owner);
  await page.goto(`${project}/changes/${change}`);
  const list = page.getByRole("navigation", { name: "Files on this page" });
  await expect(list.getByRole("link")).toHaveText(["a.txt", "src/app.ts"]);
  await list.getByRole("link", { name: "src/app.ts" }).click();
  await expect(page).toHaveURL(/#file-1$/);
  await expect(page.locator("#file-1")).toContainText("src/app.ts");

  // Only the author's approval: the policy asks for one more, so the box says so and Merge waits.
  await page.getByLabel("Approve").check();
  await page.getByRole("button", { name: "Submit review" }).click();
  await expect(page.getByRole("list", { name: "Merge blockers" })).toContainText("0 of 1 required approvals");
  await expect(page.getByText("allow this merge now")).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Merge", exact: true })).toBeDisabled();
  await expectAccessible(page);
});
