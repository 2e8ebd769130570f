import { expect, test } from "@playwright/test";
import {
  api,
  createProject,
  createUser,
  expectAccessible,
  proposeChange,
  screenshot,
  signIn,
  signOut,
} from "./support";

// The deployments page and the secrets settings page. A merge into a project whose policy deploys
// with approval makes a pending deployment; its writer approves it from the page, the provider
// call fails (a private address the instance refuses), and the writer retries it. A reader sees
// the list without buttons or logs; secrets are for admins, by name only.
test.describe.configure({ mode: "serial" });

const project = "/@dana/shipit";
const policy =
  'deploys:\n  - {"name": "production", "provider": "webhook", "url": "http://127.0.0.1:9/hook", "requireApproval": true}\n';
let token = "";

test("dana approves a pending deployment from the deployments page, then retries it once it failed", async ({
  page,
}) => {
  token = await createUser("dana");
  const id = await createProject(token, "shipit", { "README.md": "# Ship it\n", ".svc/policy.yml": policy });
  const change = await proposeChange(token, { path: "@dana/shipit", id }, "shipit-one", { "app.txt": "v1\n" });
  expect((await api("POST", `/api/changes/${change}/merge`, { token })).status).toBe(200);

  await signIn(page, "dana");
  await page.goto(project);
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Deployments" }).click();
  await expect(page).toHaveURL(new RegExp(`${project}/deployments$`));
  const table = page.getByRole("table", { name: "Deployments" });
  await expect(table).toContainText("production");
  await expect(table).toContainText("pending approval");
  await expect(table.getByRole("link", { name: change.slice(0, 8) })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "deployments");

  await table.getByRole("button", { name: "Approve production attempt 1" }).click();
  await expect(page).toHaveURL(new RegExp(`${project}/deployments/[0-9a-f-]{36}$`));
  await expect(page.getByRole("heading", { name: "Deployment production, attempt 1" })).toBeVisible();
  await expect(page.getByText("Approved by")).toBeVisible();
  // The deploy job runs in the background: the page shows the failure once it is recorded.
  await expect(async () => {
    await page.reload();
    await expect(page.getByRole("table", { name: "Deployment" })).toContainText("failed", { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
  await expect(page.getByText("Log", { exact: true })).toBeVisible();
  await expectAccessible(page);
  await screenshot(page, "deployment-failed");

  await page.getByRole("button", { name: "Retry production attempt 1" }).click();
  await expect(page.getByRole("heading", { name: "Deployment production, attempt 2" })).toBeVisible();
  await page.getByRole("link", { name: "All deployments" }).click();
  await expect(page.getByRole("table", { name: "Deployments" }).getByRole("row")).toHaveCount(3);
  await page.getByLabel("Status").selectOption("pending_approval");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/status=pending_approval/);
  await expect(page.getByText("No deployments with status pending approval.")).toBeVisible();
});

test("dana keeps deployment secrets on the secrets settings page: names only, set, replaced and deleted", async ({
  page,
}) => {
  const value = "hunter2-deploy-token-value";
  await signIn(page, "dana");
  await page.goto(`${project}/settings`);
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Secrets" }).click();
  await expect(page).toHaveURL(new RegExp(`${project}/settings/secrets$`));
  await expect(page.getByText("No secrets.")).toBeVisible();
  await expectAccessible(page);

  await page.getByLabel("Name").fill("DEPLOY_TOKEN");
  await page.getByLabel("Value").fill(value);
  await page.getByRole("button", { name: "Save secret" }).click();
  await expect(page).toHaveURL(new RegExp(`${project}/settings/secrets$`));
  const secrets = page.getByRole("table", { name: "Secrets" });
  await expect(secrets).toContainText("DEPLOY_TOKEN");
  await expect(secrets).toContainText("dana");
  expect(await page.content()).not.toContain(value);
  await expect(page.getByLabel("Value")).toHaveValue("");
  await expectAccessible(page);
  await screenshot(page, "secrets");

  // A name the store refuses (the browser's own check is bypassed): back on the page with why.
  await page.getByLabel("Name").evaluate((input) => input.removeAttribute("pattern"));
  await page.getByLabel("Name").fill("lower_case");
  await page.getByLabel("Value").fill("x");
  await page.getByRole("button", { name: "Save secret" }).click();
  const refusal = page.getByRole("alert").filter({ hasText: "Refused" });
  await expect(refusal).toContainText("VALIDATION_ERROR");
  await expect(refusal).toContainText("upper-case letter");

  await page.getByRole("button", { name: "Delete DEPLOY_TOKEN" }).click();
  await expect(page.getByText("No secrets.")).toBeVisible();
});

test("rita, a reader, sees the deployments without buttons or logs, and the secrets page is a 403 page", async ({
  page,
}) => {
  await signIn(page, "rita");
  await page.goto(`${project}/deployments`);
  const table = page.getByRole("table", { name: "Deployments" });
  await expect(table).toContainText("production");
  await expect(table.getByRole("button")).toHaveCount(0);
  await expect(page.getByText("Log", { exact: true })).toHaveCount(0);
  await expectAccessible(page);

  const secrets = await page.goto(`${project}/settings/secrets`);
  expect(secrets!.status()).toBe(403);
  await expect(page.getByRole("heading", { name: "Forbidden" })).toBeVisible();
  await signOut(page);
});
