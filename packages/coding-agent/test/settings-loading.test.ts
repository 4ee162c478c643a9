import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, SettingsError, SettingsManager } from "../src/index.js";

let home: string;
let cwd: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-home-"));
  cwd = mkdtempSync(join(tmpdir(), "tiller-proj-"));
  mkdirSync(join(cwd, ".tiller"));
});
afterEach(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(cwd, { recursive: true, force: true });
});

describe("settings", () => {
  it("merges defaults < global < project, nested objects key by key", () => {
    writeFileSync(
      join(home, "settings.json"),
      JSON.stringify({ defaultModel: "g", compaction: { reserveTokens: 1000 } }),
    );
    writeFileSync(
      join(cwd, ".tiller", "settings.json"),
      JSON.stringify({ defaultModel: "p", compaction: { enabled: false } }),
    );
    const s = SettingsManager.create(cwd, home);
    expect(s.errors).toEqual([]);
    expect(s.get().defaultModel).toBe("p");
    expect(s.get().compaction).toEqual({ ...DEFAULT_SETTINGS.compaction, reserveTokens: 1000, enabled: false });
    expect(s.get().retry).toEqual(DEFAULT_SETTINGS.retry);
  });

  it("reports a key of the wrong type by name and file, and uses the default for it", () => {
    writeFileSync(
      join(cwd, ".tiller", "settings.json"),
      JSON.stringify({
        compaction: { reserveTokens: "lots", keepRecentTokens: 5 },
        steeringMode: "sometimes",
        custom: 1,
      }),
    );
    const s = SettingsManager.create(cwd, home);
    expect(s.errors).toHaveLength(2);
    expect(s.errors[0]).toContain(join(cwd, ".tiller", "settings.json"));
    expect(s.errors.join("\n")).toMatch(/compaction\.reserveTokens must be a non-negative integer \(got "lots"\)/);
    expect(s.errors.join("\n")).toMatch(/steeringMode must be one of "all", "one-at-a-time"/);
    expect(s.get().compaction.reserveTokens).toBe(DEFAULT_SETTINGS.compaction.reserveTokens);
    expect(s.get().compaction.keepRecentTokens).toBe(5);
    expect(s.get().custom).toBe(1);
  });

  it("reports invalid JSON with the file name and keeps working on defaults", () => {
    writeFileSync(join(home, "settings.json"), "{ not json");
    const s = SettingsManager.create(cwd, home);
    expect(s.errors[0]).toMatch(new RegExp(`${join(home, "settings.json")}: invalid JSON`));
    expect(s.get().retry.enabled).toBe(true);
  });

  it("set() validates before writing the global file, keeping other keys", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ theme: "dark" }));
    const s = SettingsManager.create(cwd, home);
    expect(() => s.set("retry", { maxRetries: -1 })).toThrow(SettingsError);
    expect(() => s.set("retry", { maxRetries: -1 })).toThrow(/retry\.maxRetries/);
    s.set("defaultModel", "gpt-5");
    expect(JSON.parse(readFileSync(join(home, "settings.json"), "utf8"))).toEqual({
      theme: "dark",
      defaultModel: "gpt-5",
    });
    expect(s.get().defaultModel).toBe("gpt-5");
  });
});
