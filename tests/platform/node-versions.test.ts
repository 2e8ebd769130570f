import fs from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

// package.json's `engines` is a promise to users: every Node it admits must run every package
// that `npm ci` installs, and the types we compile against are those of the oldest Node it admits.
const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"));
const ours: string = readJson("package.json").engines.node;

type LockedPackage = { version?: string; engines?: { node?: string }; os?: string[]; cpu?: string[] };
const installedHere = (entry: LockedPackage) =>
  (!entry.os || entry.os.includes(process.platform)) && (!entry.cpu || entry.cpu.includes(process.arch));

describe("supported Node versions", () => {
  it("admit only versions every installed package declares it runs on", () => {
    const packages: Record<string, LockedPackage> = readJson("package-lock.json").packages;
    const refusing = Object.entries(packages)
      .filter(([name, entry]) => name !== "" && installedHere(entry) && entry.engines?.node)
      .filter(([, entry]) => !semver.subset(ours, entry.engines!.node!))
      .map(([name, entry]) => `${name.replace(/^.*node_modules\//, "")} wants ${entry.engines!.node}`);
    expect(refusing).toEqual([]);
  });

  it("are the maintained lines, 22 and 24", () => {
    for (const version of ["22.13.0", "24.0.0"]) expect(semver.satisfies(version, ours)).toBe(true);
    expect(semver.satisfies("20.19.0", ours)).toBe(false);
  });

  it("compile against the types of the oldest", () => {
    const types = readJson("node_modules/@types/node/package.json").version;
    expect(semver.major(types)).toBe(semver.minVersion(ours)!.major);
  });
});
