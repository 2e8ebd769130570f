import fs from "node:fs";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { api, createProject, createUser, expectAccessible, proposeChange, signIn } from "./support";

// Every kind of page: no axe-core violation of serious or critical impact (its colours in the light
// and the dark scheme), a <title> naming the page, lang, the favicon, one <main>, and at 390 px nothing
// wider than the screen (wide tables, code and diffs scroll inside their box). The data has what
// makes pages hard: a long line of code, a wide Markdown table, a diff with a thread on a line.
// Many pages a test, each checked twice by axe: minutes on a busy machine.
test.describe.configure({ mode: "serial", timeout: 600_000 });

const owner = "sweep";
const project = `/@${owner}/atlas`;
const LONG = `export const atlas = [${Array.from({ length: 40 }, (_, i) => `"place-${i}"`).join(", ")}];`;
const README = `# atlas\n\n| ${Array.from({ length: 12 }, (_, i) => `column ${i}`).join(" | ")} |\n|${"---|".repeat(12)}\n| ${Array.from({ length: 12 }, (_, i) => `value ${i}`).join(" | ")} |\n\n\`\`\`\n${LONG}\n\`\`\`\n`;
const FILES = {
  "README.md": README,
  "src/atlas.ts": `// The places.\n${LONG}\nexport const count = 40;\n`,
  "docs/guide.md": "# Guide\n\n- [x] read\n- [ ] write\n",
};

let token = "";
let changeId = "";
let issueNumber = 0;
let headSha = "";

/** axe-core's rules that read colours; the others see the same page in either scheme. */
const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/** The checks every page gets, with the status it should answer; soft, so one run lists every page's faults. */
async function sweep(page: Page, url: string, status = 200) {
  const response = await page.goto(url);
  expect.soft(response?.status(), url).toBe(status);
  await expect.soft(page.locator("html")).toHaveAttribute("lang", "en");
  await expect.soft(page.locator('head link[rel="icon"]')).toHaveAttribute("href", /favicon/);
  await expect.soft(page.locator("main")).toHaveCount(1);
  const title = await page.title();
  // The home page is the site's; every other page names itself first.
  expect.soft(title, url).toMatch(url === "/" ? /^svc-forge$/ : /^.+ · svc-forge$/);
  await expectAccessible(page, { soft: true });
  // The dark scheme changes colours only: the rules about colour, not the whole set again.
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, { soft: true, rules: COLOUR_RULES });
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 390, height: 844 });
  expect
    .soft(await page.evaluate(() => document.documentElement.scrollWidth), `${url} at 390 px`)
    .toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("the data: a project with a branch, a tag, a change with a thread, an issue, a webhook, an organization", async () => {
  token = await createUser(owner);
  await createUser("sweep-reader");
  const id = await createProject(token, "atlas", FILES);
  expect((await api("POST", `/api/projects${project}/branches`, { token, body: { name: "topic" } })).status).toBe(201);
  expect(
    (await api("POST", `/api/projects${project}/tags`, { token, body: { name: "v1", message: "First atlas" } })).status,
  ).toBe(201);
  changeId = await proposeChange(token, { path: `@${owner}/atlas`, id }, "more-places", {
    "src/atlas.ts": `// The places, and more.\n${LONG.replace("place-3", "place-three")}\nexport const count = 41;\n`,
  });
  const branches = await api<{ branches: Array<{ name: string; oid: string }> }>(
    "GET",
    `/api/projects${project}/branches`,
    { token },
  );
  headSha = branches.body.branches.find((branch) => branch.name === "main")!.oid;
  const change = await api<{ change: { tipSha: string } }>("GET", `/api/changes/${changeId}`, { token });
  expect(
    (
      await api("POST", `/api/changes/${changeId}/comments`, {
        token,
        body: {
          body: "Why **three**?",
          file: "src/atlas.ts",
          line: 2,
          side: "new",
          commitSha: change.body.change.tipSha,
        },
      })
    ).status,
  ).toBe(201);
  const issue = await api<{ issue: { number: number } }>("POST", `/api/projects${project}/issues`, {
    token,
    body: { title: "Add the poles", body: "See `src/atlas.ts`." },
  });
  expect(issue.status).toBe(201);
  issueNumber = issue.body.issue.number;
  expect(
    (
      await api("PATCH", `/api/projects${project}/issues/${issueNumber}`, {
        token,
        body: { labels: ["geography", "good first issue"] },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await api("POST", `/api/projects${project}/webhooks`, {
        token,
        body: { url: "https://93.184.215.14/sweep", events: "*" },
      })
    ).status,
  ).toBe(201);
  expect((await api("POST", "/api/orgs", { token, body: { slug: "sweepers", name: "Sweepers" } })).status).toBe(201);
});

test("every page of a project, signed in as its owner", async ({ page }) => {
  await signIn(page, owner);
  for (const url of [
    "/",
    project,
    `${project}/tree/main/src`,
    `${project}/blob/main/src/atlas.ts`,
    `${project}/blob/main/docs/guide.md`,
    `${project}/blame/main/src/atlas.ts`,
    `${project}/commits`,
    `${project}/commit/${headSha}`,
    `${project}/compare/main...topic`,
    `${project}/search?q=place`,
    `${project}/branches`,
    `${project}/tags`,
    `${project}/changes`,
    `${project}/changes/${changeId}`,
    `${project}/changes/${changeId}?c=f0n3`,
    `${project}/issues`,
    `${project}/issues/new`,
    `${project}/issues/${issueNumber}`,
    `${project}/queue`,
    `${project}/deployments`,
    `${project}/settings`,
    `${project}/settings/webhooks`,
    `${project}/settings/secrets`,
    `${project}/settings/collaborators`,
    "/settings/tokens",
    "/settings/account",
    "/orgs/sweepers",
  ])
    await sweep(page, url);
});

test("the refusal pages and the pages of someone who may only read", async ({ page }) => {
  await sweep(page, "/login");
  await sweep(page, project);
  await sweep(page, `${project}/changes/${changeId}`);
  await sweep(page, `/@${owner}/no-such-project`, 404);
  await signIn(page, "sweep-reader");
  await sweep(page, `${project}/settings`, 403);
  await sweep(page, `${project}/issues/${issueNumber}`);
});

test("a page the server fails to build: the 500 page in the site layout, with JavaScript or without", async ({
  page,
  browser,
  baseURL,
}) => {
  // A real fault, not an injected one: the repository's objects are gone from the disk under it.
  const id = await createProject(token, "broken", { "README.md": "# broken\n" });
  fs.rmSync(path.join(process.env.E2E_DATA_DIR!, "repos", id, "project.git", "objects"), {
    recursive: true,
    force: true,
  });
  await sweep(page, `/@${owner}/broken/blob/main/README.md`, 500);
  await expect(page.getByRole("heading", { name: "Something went wrong" })).toBeVisible();

  // Next.js's error shell is empty until its JavaScript runs; server.mjs adds the page for browsers without it.
  const noScript = await browser.newContext({ javaScriptEnabled: false, baseURL });
  const plain = await noScript.newPage();
  expect((await plain.goto(`/@${owner}/broken/blob/main/README.md`))?.status()).toBe(500);
  await expect(plain.getByRole("heading", { name: "Something went wrong" })).toBeVisible();
  expect(await plain.locator("main").textContent()).toMatch(/Error id \d+/);
  await expect(plain.getByRole("link", { name: "Home" })).toBeVisible();
  await noScript.close();
});

test("a profile page", async ({ page }) => {
  await sweep(page, `/@${owner}`);
});
