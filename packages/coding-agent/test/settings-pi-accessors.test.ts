/**
 * SettingsManager's pi accessors (terminal UI, transport, npm command, enabled models, branch summary, provider
 * retry, warnings, project resource paths): the same defaults as pi's SettingsManager, the same values after the
 * same setter calls, the same JSON written to the settings files, and a file written by Tiller reads the same in pi.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SettingsManager as PiSettingsManager } from "@mariozechner/pi-coding-agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SettingsManager } from "../src/index.js";

let dir: string;
const saved = { ...process.env };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-settings-pi-"));
  // pi falls back to these for two of the getters; Tiller reads settings only.
  delete process.env.PI_CLEAR_ON_SHRINK;
  delete process.env.PI_HARDWARE_CURSOR;
});
afterEach(() => {
  process.env = { ...saved };
  rmSync(dir, { recursive: true, force: true });
});

const GETTERS = [
  "getTheme",
  "getThemePaths",
  "getQuietStartup",
  "getCollapseChangelog",
  "getLastChangelogVersion",
  "getHideThinkingBlock",
  "getShowHardwareCursor",
  "getAutocompleteMaxVisible",
  "getEditorPaddingX",
  "getDoubleEscapeAction",
  "getTreeFilterMode",
  "getCodeBlockIndent",
  "getClearOnShrink",
  "getShowImages",
  "getShowTerminalProgress",
  "getImageWidthCells",
  "getImageAutoResize",
  "getBlockImages",
  "getEnabledModels",
  "getEnableSkillCommands",
  "getEnableInstallTelemetry",
  "getNpmCommand",
  "getTransport",
  "getThinkingBudgets",
  "getWarnings",
  "getBranchSummarySettings",
  "getBranchSummarySkipPrompt",
  "getProviderRetrySettings",
  "getShellCommandPrefix",
] as const;

/** Setter calls, values chosen to hit pi's clamping (autocomplete 3–20, padding 0–3, image width ≥ 1). */
const CALLS: Array<[string, unknown]> = [
  ["setTheme", "light"],
  ["setThemePaths", ["themes/a.json"]],
  ["setQuietStartup", true],
  ["setCollapseChangelog", true],
  ["setLastChangelogVersion", "0.73.1"],
  ["setHideThinkingBlock", true],
  ["setShowHardwareCursor", true],
  ["setAutocompleteMaxVisible", 50.7],
  ["setEditorPaddingX", -2],
  ["setDoubleEscapeAction", "fork"],
  ["setTreeFilterMode", "user-only"],
  ["setClearOnShrink", true],
  ["setShowImages", false],
  ["setShowTerminalProgress", true],
  ["setImageWidthCells", 0.5],
  ["setImageAutoResize", false],
  ["setBlockImages", true],
  ["setEnabledModels", ["claude-*", "gpt-5"]],
  ["setEnableSkillCommands", false],
  ["setEnableInstallTelemetry", false],
  ["setNpmCommand", ["pnpm", "--silent"]],
  ["setTransport", "websocket"],
  ["setWarnings", { anthropicExtraUsage: true }],
];

type Any = Record<string, (...args: unknown[]) => unknown>;
const read = (s: unknown) => Object.fromEntries(GETTERS.map((g) => [g, (s as Any)[g]?.()]));
const json = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

describe("SettingsManager: pi's accessors", () => {
  it("read pi's defaults from empty settings", () => {
    expect(read(SettingsManager.inMemory())).toEqual(read(PiSettingsManager.inMemory()));
  });

  it("store what pi stores, in the same JSON, and pi reads Tiller's file the same", async () => {
    const home = join(dir, "home");
    const agentDir = join(dir, "pi-agent");
    const cwd = join(dir, "proj");
    mkdirSync(cwd);
    const ours = SettingsManager.create(cwd, home);
    const pi = PiSettingsManager.create(cwd, agentDir);
    for (const [setter, value] of CALLS) {
      (ours as unknown as Any)[setter]?.(value);
      (pi as unknown as Any)[setter]?.(value);
    }
    await pi.flush();
    expect(read(ours)).toEqual(read(pi));
    expect(ours.getAutocompleteMaxVisible()).toBe(20);
    expect(ours.getEditorPaddingX()).toBe(0);
    expect(ours.getImageWidthCells()).toBe(1);
    expect(json(join(home, "settings.json"))).toEqual(json(join(agentDir, "settings.json")));

    // A fresh manager reads it back; pi reads Tiller's file as its own.
    expect(read(SettingsManager.create(cwd, home))).toEqual(read(pi));
    const piAgain = join(dir, "pi-again");
    mkdirSync(piAgain);
    copyFileSync(join(home, "settings.json"), join(piAgain, "settings.json"));
    expect(read(PiSettingsManager.create(cwd, piAgain))).toEqual(read(ours));
  });

  it("read nested settings pi's way: branch summary, provider retry, thinking budgets, values of a wrong kind", () => {
    const settings = {
      branchSummary: { reserveTokens: 4000, skipPrompt: true },
      retry: { provider: { timeoutMs: 30_000, maxRetries: 2 } },
      thinkingBudgets: { low: 1024, high: 8192 },
      markdown: { codeBlockIndent: "    " },
      treeFilterMode: "bogus",
      transport: "sse",
      shellCommandPrefix: "set -e",
    };
    const home = join(dir, "home2");
    mkdirSync(home);
    writeFileSync(join(home, "settings.json"), JSON.stringify(settings));
    const agentDir = join(dir, "pi2");
    mkdirSync(agentDir);
    writeFileSync(join(agentDir, "settings.json"), JSON.stringify(settings));
    const ours = read(SettingsManager.create(dir, home));
    expect(ours).toEqual(read(PiSettingsManager.create(dir, agentDir)));
    expect(ours.getTreeFilterMode).toBe("default");
    expect(ours.getProviderRetrySettings).toEqual({ timeoutMs: 30_000, maxRetries: 2, maxRetryDelayMs: 60_000 });
  });

  it("write the project's resource paths to the project file, as pi does to its own", async () => {
    const cwd = join(dir, "proj");
    mkdirSync(cwd);
    const ours = SettingsManager.create(cwd, join(dir, "home"));
    const pi = PiSettingsManager.create(cwd, join(dir, "pi-agent"));
    for (const s of [ours, pi] as unknown as Any[]) {
      s.setProjectPackages?.(["npm:@acme/tools"]);
      s.setProjectExtensionPaths?.(["ext/a.ts"]);
      s.setProjectSkillPaths?.(["skills"]);
      s.setProjectPromptTemplatePaths?.(["prompts"]);
      s.setProjectThemePaths?.(["themes"]);
    }
    await pi.flush();
    expect(json(join(cwd, ".tiller", "settings.json"))).toEqual(json(join(cwd, ".pi", "settings.json")));
    expect(existsSync(join(dir, "home", "settings.json"))).toBe(false);
    expect(ours.getPackages()).toEqual(["npm:@acme/tools"]);
    expect(ours.getExtensionPaths()).toEqual(["ext/a.ts"]);
  });

  it("reload resolves after re-reading the files; drainErrors carries pi's scope and error", async () => {
    const home = join(dir, "home3");
    const cwd = join(dir, "proj3");
    mkdirSync(join(cwd, ".tiller"), { recursive: true });
    const s = SettingsManager.create(cwd, home);
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "settings.json"), JSON.stringify({ theme: "dark" }));
    writeFileSync(join(cwd, ".tiller", "settings.json"), "{ not json");
    await s.reload();
    expect(s.getTheme()).toBe("dark");
    const [problem] = s.drainErrors();
    expect(problem?.scope).toBe("project");
    expect(problem?.error.message).toMatch(/invalid JSON/);
    expect(s.drainErrors()).toEqual([]);
  });
});
