import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { withEnv } from "@/tests/support/env";
import { seal, unseal, UnsealError } from "./seal";

const KEY_A = "a".repeat(43);
const KEY_B = "b".repeat(43);

describe("seal", () => {
  it("round-trips, with a fresh nonce each time", () =>
    withEnv({ SECRET_KEY: KEY_A }, async () => {
      const first = seal("webhook-secret", "whsec_x");
      const second = seal("webhook-secret", "whsec_x");
      expect(first).not.toBe(second);
      expect(first).not.toContain("whsec_x");
      expect(unseal("webhook-secret", first)).toBe("whsec_x");
    }));

  it("refuses a tampered value and another instance key", () =>
    withEnv({ SECRET_KEY: KEY_A }, async () => {
      const sealed = seal("webhook-secret", "whsec_y");
      const parts = sealed.split(".");
      parts[3] = Buffer.from("whsec_z").toString("base64url");
      expect(() => unseal("webhook-secret", parts.join("."))).toThrow(UnsealError);
      expect(() => unseal("webhook-secret", "plain")).toThrow(UnsealError);
      await withEnv({ SECRET_KEY: KEY_B }, async () =>
        expect(() => unseal("webhook-secret", sealed)).toThrow(UnsealError),
      );
    }));

  it("a SECRET_KEY shorter than 32 characters is refused by name", () =>
    withEnv({ SECRET_KEY: "short" }, async () =>
      expect(() => seal("webhook-secret", "x")).toThrow(/SECRET_KEY must be at least 32 characters/),
    ));

  it("without SECRET_KEY, a key is generated once into DATA_DIR with mode 0600", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-seal-"));
    try {
      await withEnv({ SECRET_KEY: undefined, DATA_DIR: dataDir }, async () => {
        const sealed = seal("webhook-secret", "whsec_gen");
        const file = path.join(dataDir, "secret-key");
        expect(fs.statSync(file).mode & 0o777).toBe(0o600);
        expect(unseal("webhook-secret", sealed)).toBe("whsec_gen");
      });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
