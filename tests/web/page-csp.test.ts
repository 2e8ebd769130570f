import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { proxy } from "@/proxy";
import { withEnv } from "@/tests/support/env";

const imgSrc = () => {
  const policy = proxy(new NextRequest("http://svc.test/@alice")).headers.get("content-security-policy") ?? "";
  return policy.split("; ").find((directive) => directive.startsWith("img-src "));
};

describe("the pages' Content-Security-Policy for pictures", () => {
  it("allows this site and data: only, unless sign-in through GitHub is configured", async () => {
    await withEnv({ AUTH_GITHUB_ID: undefined, AUTH_GITHUB_ENTERPRISE_URL: undefined }, async () => {
      expect(imgSrc()).toBe("img-src 'self' data:");
    });
  });

  it("allows GitHub's picture host, or the GitHub Enterprise origin, where /avatars/<name> may redirect", async () => {
    await withEnv({ AUTH_GITHUB_ID: "id", AUTH_GITHUB_ENTERPRISE_URL: undefined }, async () => {
      expect(imgSrc()).toBe("img-src 'self' data: https://avatars.githubusercontent.com");
    });
    await withEnv({ AUTH_GITHUB_ID: "id", AUTH_GITHUB_ENTERPRISE_URL: "https://ghe.example.com/base" }, async () => {
      expect(imgSrc()).toBe("img-src 'self' data: https://ghe.example.com");
    });
  });
});
