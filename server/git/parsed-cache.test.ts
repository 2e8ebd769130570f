import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { cacheReports } from "@/server/caches";
import { countMiss, keepParsed, keptParsed } from "./parsed-cache";
import type { ParsedObject } from "./loose";

const oid = (n: number) => n.toString(16).padStart(40, "0");
const tree = (entries: number): ParsedObject => ({
  type: "tree",
  object: Array.from({ length: entries }, (_, i) => ({
    mode: "100644",
    path: `f${i}`,
    oid: oid(i),
    type: "blob" as const,
  })),
});
const parsedReport = () => cacheReports().find((cache) => cache.name === "git.parsedObjects")!;
const parsedWeight = () => parsedReport().entries;

// Kept objects are answered only to a repository whose store holds the file they came from.
const gitdir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-parsed-cache-"));
const file = path.join(gitdir, "objects", "pack", "pack-test.idx");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, "");
const packed = { packIndex: file };
const kept = (n: number) => keptParsed(oid(n), [gitdir]) !== undefined;

describe("the parsed-object cache", () => {
  it("holds at most 200,000 tree entries and commits, the least recently used going first", () => {
    // Trees of 999 entries weigh 1,000: 200 of them fill it.
    for (let n = 0; n < 200; n++) keepParsed(oid(n), tree(999), packed);
    expect(parsedWeight()).toBe(200_000);
    expect(kept(0)).toBe(true); // read: now the most recently used
    keepParsed(oid(200), tree(999), packed);
    expect(kept(0)).toBe(true);
    expect(kept(1)).toBe(false);
    for (let n = 201; n < 500; n++) keepParsed(oid(n), tree(999), packed);
    expect(parsedWeight()).toBe(200_000);
    expect(kept(0)).toBe(false);
    expect(kept(499)).toBe(true);
  });

  it("is one per process: another module copy of the build (Next.js makes one per entry point) shares it", async () => {
    keepParsed(oid(600), tree(3), packed);
    vi.resetModules();
    const copy = await import("./parsed-cache");
    expect(copy.keepParsed).not.toBe(keepParsed);
    const first = keptParsed(oid(600), [gitdir]);
    expect(first).toBeDefined();
    expect(copy.keptParsed(oid(600), [gitdir])).toBe(first);
    copy.keepParsed(oid(601), tree(3), packed);
    expect(kept(601)).toBe(true);
  });

  it("keeps no tree of 2,000 entries or more", () => {
    keepParsed(oid(500), tree(1_999), packed);
    expect(kept(500)).toBe(true);
    keepParsed(oid(501), tree(2_000), packed);
    expect(kept(501)).toBe(false);
  });

  it("counts the trees and commits read again from a store as misses, not the blobs, the objects not found or the writes", () => {
    const before = parsedReport().misses!;
    const read = tree(2);
    expect(countMiss(read)).toBe(read);
    countMiss({ type: "blob", object: new Uint8Array(1) });
    countMiss(null);
    keepParsed(oid(702), tree(2), packed);
    expect(parsedReport().misses).toBe(before + 1);
  });

  it("derives a loose object's file from its store, answers it only to that store, and forgets it once the file is gone", () => {
    const loose = path.join(gitdir, "objects", oid(800).slice(0, 2), oid(800).slice(2));
    fs.mkdirSync(path.dirname(loose), { recursive: true });
    fs.writeFileSync(loose, "");
    keepParsed(oid(800), tree(1), { looseIn: gitdir });
    expect(kept(800)).toBe(true);
    expect(keptParsed(oid(800), [`${gitdir}-another`])).toBeUndefined();
    fs.rmSync(loose);
    expect(kept(800)).toBe(false);
  });
});
