import { describe, expect, it } from "vitest";
import { GET } from "@/app/avatars/[name]/route";

const get = (name: string) => GET(new Request(`http://127.0.0.1/avatars/${name}`));

describe("GET /avatars/{name}", () => {
  it("answers a person's identicon, the same for the same name and another for another", async () => {
    const alice = await get("alice");
    expect(alice.status).toBe(200);
    expect(alice.headers.get("content-type")).toBe("image/svg+xml");
    expect(alice.headers.get("cache-control")).toContain("max-age");
    const svg = await alice.text();
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(await (await get("alice")).text()).toBe(svg);
    expect(await (await get("bob")).text()).not.toBe(svg);
  });

  it("refuses what is no username with a 400 envelope", async () => {
    for (const bad of ["%3Cscript%3E", "-x", "a%20b", "%E0%A4%A"]) {
      const res = await get(bad);
      expect(res.status, bad).toBe(400);
      expect((await res.json()).error).toEqual(expect.any(String));
    }
  });
});
