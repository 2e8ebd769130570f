import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { lockDataDir } from "./data-dir-lock";

const dataDir = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "svc-lock-")), "db");
// A process that outlives the test's checks, standing for a running server.
const holder = spawn("sleep", ["120"], { stdio: "ignore" });
afterAll(() => void holder.kill());

describe("the embedded data directory's lock", () => {
  it("is taken with this pid and released on close", () => {
    const dir = dataDir();
    const release = lockDataDir(dir);
    expect(fs.readFileSync(`${dir}.lock`, "utf8").trim()).toBe(String(process.pid));
    expect(fs.statSync(`${dir}.lock`).mode & 0o777).toBe(0o600);
    release();
    expect(fs.existsSync(`${dir}.lock`)).toBe(false);
  });

  it("refuses while another live process holds it, naming the pid and what to do instead", () => {
    const dir = dataDir();
    fs.writeFileSync(`${dir}.lock`, `${holder.pid}\n`);
    expect(() => lockDataDir(dir)).toThrow(new RegExp(`open in process ${holder.pid}.*POST /api/admin/backups`));
    expect(fs.readFileSync(`${dir}.lock`, "utf8").trim()).toBe(String(holder.pid));
  });

  it("takes over a stale lock, whose process is gone", () => {
    const dir = dataDir();
    const gone = spawnSync("true").pid;
    fs.writeFileSync(`${dir}.lock`, `${gone}\n`);
    const release = lockDataDir(dir);
    expect(fs.readFileSync(`${dir}.lock`, "utf8").trim()).toBe(String(process.pid));
    release();
  });

  it("makes `npm run svc -- backup` refuse against a running embedded server, opening nothing", () => {
    const data = fs.mkdtempSync(path.join(os.tmpdir(), "svc-lock-data-"));
    fs.writeFileSync(path.join(data, "db.lock"), `${holder.pid}\n`);
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: data };
    delete env.DATABASE_URL;
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/svc.ts", "backup"], {
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(`open in process ${holder.pid}`);
    expect(run.stderr).toContain("POST /api/admin/backups");
    expect(fs.existsSync(path.join(data, "db"))).toBe(false);
  }, 150_000);
});
