import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InternalHookRegistry } from "../src/hooks/internal-hooks.js";
import { HookRunner } from "../src/plugins/hook-runner.js";
import type { ErasedHookHandler } from "../src/plugins/hook-types.js";
import { capBootstrapFiles, loadBootstrapFiles, truncateMiddle } from "../src/prompt/bootstrap-files.js";
import { prepareRunPrompt, runModelHooks } from "../src/prompt/prepare-run-prompt.js";
import { resolvePromptLimits } from "../src/prompt/prompt-limits.js";
import { takeSkillsSnapshot } from "../src/prompt/skills-snapshot.js";
import { buildAgentSystemPrompt, formatSystemPromptReport } from "../src/prompt/system-prompt-builder.js";

let dir: string;
let ws: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-prompt-"));
  ws = join(dir, "workspace");
  mkdirSync(ws);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const tools = [
  { name: "read", description: "Read a file. Returns its text.", parameters: { type: "object" } },
  { name: "exec", description: "Run a shell command.", parameters: { type: "object", properties: { command: {} } } },
];

describe("system prompt builder", () => {
  it("full mode has every section in order, with bootstrap files under Project Context", () => {
    writeFileSync(join(ws, "AGENTS.md"), "Always write tests.");
    writeFileSync(join(ws, "SOUL.md"), "Be terse.");
    const files = capBootstrapFiles(loadBootstrapFiles(ws));
    const { prompt, report } = buildAgentSystemPrompt({
      agentId: "main",
      tools,
      skillsPrompt: "<available_skills></available_skills>",
      docsPath: "/docs",
      workspaceDir: ws,
      sandbox: { enabled: true, workspaceDir: join(dir, "sb"), readOnly: true, agentWorkspaceDir: ws },
      channel: "webchat",
      messagingTools: ["message"],
      heartbeats: { enabled: true },
      runtime: { host: "h", os: "linux", node: "v20", model: "openai/gpt", thinking: "low", timezone: "UTC" },
      bootstrapFiles: files,
      extraSystemPrompt: "You are in #general.",
      prependSystemContext: "PLUGIN-PREPEND",
      appendSystemContext: "PLUGIN-APPEND",
    });
    expect(report.sections.map((s) => s.id)).toEqual([
      "prepend_system_context",
      "base",
      "tools",
      "safety",
      "cli",
      "skills",
      "documentation",
      "workspace",
      "sandbox",
      "messaging",
      "reply_tags",
      "silent_replies",
      "heartbeats",
      "runtime",
      "project_context",
      "extra_system_prompt",
      "append_system_context",
    ]);
    expect(prompt.startsWith("PLUGIN-PREPEND")).toBe(true);
    expect(prompt.endsWith("PLUGIN-APPEND")).toBe(true);
    expect(prompt).toContain("## AGENTS.md\n\nAlways write tests.");
    expect(prompt).toContain("embody it");
    expect(prompt).toContain(`## TOOLS.md\n\n[missing: ${join(ws, "TOOLS.md")}]`);
    expect(prompt).toContain("read-only");
    expect(prompt).toContain("Runtime: agent=main | host=h | os=linux | node=v20 | model=openai/gpt | thinking=low");
    expect(prompt).toContain("## Group Chat Context\n\nYou are in #general.");
    expect(prompt).toContain("- exec: Run a shell command.");
    expect(report.totalChars).toBe(prompt.length);
    expect(report.sections.reduce((n, s) => n + s.chars, 0) + (report.sections.length - 1) * 2).toBe(prompt.length);
    expect(report.tools.count).toBe(2);
    expect(report.tools.schemaChars).toBeGreaterThan(10);
  });

  it("minimal mode (sub-agents) drops skills, messaging, reply tags, silent replies and heartbeats", () => {
    writeFileSync(join(ws, "AGENTS.md"), "agents");
    writeFileSync(join(ws, "SOUL.md"), "soul");
    const files = capBootstrapFiles(loadBootstrapFiles(ws, { mode: "minimal" }));
    expect(files.map((f) => f.name)).toEqual(["AGENTS.md", "TOOLS.md"]);
    const { prompt, report } = buildAgentSystemPrompt({
      mode: "minimal",
      agentId: "main",
      tools,
      skillsPrompt: "SKILLS",
      workspaceDir: ws,
      channel: "webchat",
      heartbeats: { enabled: true },
      bootstrapFiles: files,
      extraSystemPrompt: "Summarise the repo.",
    });
    const ids = report.sections.map((s) => s.id);
    for (const gone of ["skills", "messaging", "reply_tags", "silent_replies", "heartbeats", "cli"]) {
      expect(ids).not.toContain(gone);
    }
    expect(prompt).toContain("## Subagent Context");
    expect(prompt).not.toContain("soul");
  });

  it("is deterministic: the same inputs give the same text (tools are sorted)", () => {
    const a = buildAgentSystemPrompt({ agentId: "x", tools, workspaceDir: ws }).prompt;
    const b = buildAgentSystemPrompt({ agentId: "x", tools: [...tools].reverse(), workspaceDir: ws }).prompt;
    expect(a).toBe(b);
    expect(a).not.toMatch(/\d{2}:\d{2}/); // no clock in the prompt
  });
});

describe("bootstrap files: caps and report", () => {
  it("applies the per-file cap (head and tail kept) and reports raw vs injected sizes", () => {
    writeFileSync(join(ws, "AGENTS.md"), `HEAD${"a".repeat(5000)}TAIL`);
    writeFileSync(join(ws, "TOOLS.md"), "small");
    const files = capBootstrapFiles(loadBootstrapFiles(ws), { maxChars: 1000 });
    const agents = files.find((f) => f.name === "AGENTS.md");
    expect(agents).toMatchObject({ rawChars: 5008, truncated: true, missing: false });
    expect(agents?.injectedChars).toBeLessThanOrEqual(1000);
    expect(agents?.text.startsWith("HEAD")).toBe(true);
    expect(agents?.text.endsWith("TAIL")).toBe(true);
    expect(agents?.text).toContain("AGENTS.md truncated: 5008 characters");
    expect(files.find((f) => f.name === "TOOLS.md")).toMatchObject({ truncated: false, injectedChars: 5 });
  });

  it("the total cap shrinks later files and omits those that no longer fit", () => {
    for (const name of ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md"])
      writeFileSync(join(ws, name), "x".repeat(900));
    const files = capBootstrapFiles(loadBootstrapFiles(ws), { maxChars: 1000, totalMaxChars: 1900 });
    const byName = Object.fromEntries(files.map((f) => [f.name, f]));
    expect(byName["AGENTS.md"]).toMatchObject({ truncated: false, injectedChars: 900 });
    expect(byName["SOUL.md"]).toMatchObject({ truncated: false, injectedChars: 900 });
    expect(byName["TOOLS.md"]).toMatchObject({ truncated: true, omitted: true, injectedChars: 0 });
    expect(byName["IDENTITY.md"]?.omitted).toBe(true);
    const total = files.reduce((n, f) => n + f.injectedChars, 0);
    expect(total).toBeLessThanOrEqual(1900);
    const { report } = buildAgentSystemPrompt({ agentId: "a", workspaceDir: ws, bootstrapFiles: files });
    expect(report.truncated).toBe(true);
    expect(formatSystemPromptReport(report)).toContain("file TOOLS.md: 0/900 chars (omitted)");
  });

  it("optional files are skipped when absent; HEARTBEAT.md only with heartbeats; memory.md is accepted", () => {
    writeFileSync(join(ws, "HEARTBEAT.md"), "check mail");
    writeFileSync(join(ws, "memory.md"), "remember");
    expect(loadBootstrapFiles(ws).map((f) => f.name)).toEqual([
      "AGENTS.md",
      "SOUL.md",
      "TOOLS.md",
      "IDENTITY.md",
      "USER.md",
      "MEMORY.md",
    ]);
    expect(loadBootstrapFiles(ws, { heartbeatsEnabled: true }).map((f) => f.name)).toContain("HEARTBEAT.md");
    expect(loadBootstrapFiles(ws, { mode: "heartbeat" }).map((f) => [f.name, f.content])).toEqual([
      ["HEARTBEAT.md", "check mail"],
    ]);
  });

  it("truncation never splits a surrogate pair", () => {
    const text = "😀".repeat(400);
    for (const limit of [201, 202, 203, 250]) {
      const out = truncateMiddle(text, limit, "X.md");
      expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});

describe("model limits and compaction reserve", () => {
  it("a small context window shrinks the bootstrap caps; a large one keeps the configured caps", () => {
    const big = resolvePromptLimits({ contextWindow: 200_000 });
    expect(big).toMatchObject({ reserveTokens: 16_384, bootstrapTotalMaxChars: 150_000, bootstrapMaxChars: 20_000 });
    const small = resolvePromptLimits({ contextWindow: 8192 });
    expect(small.reserveTokens).toBe(2048);
    expect(small.bootstrapTotalMaxChars).toBeLessThan(10_000);
    expect(small.bootstrapMaxChars).toBeLessThanOrEqual(small.bootstrapTotalMaxChars);
    expect(small.systemPromptMaxTokens).toBe(Math.floor((8192 - 2048) * 0.3));
  });

  it("the report flags a prompt over the model's budget", () => {
    writeFileSync(join(ws, "AGENTS.md"), "y".repeat(30_000));
    const limits = resolvePromptLimits({ contextWindow: 4096, bootstrapMaxChars: 50_000 });
    const files = capBootstrapFiles(loadBootstrapFiles(ws), {
      maxChars: limits.bootstrapMaxChars,
      totalMaxChars: limits.bootstrapTotalMaxChars,
    });
    expect(files[0]?.injectedChars).toBeLessThanOrEqual(limits.bootstrapTotalMaxChars);
    const { report } = buildAgentSystemPrompt({ agentId: "a", workspaceDir: ws, bootstrapFiles: files, limits });
    expect(report.limits?.contextWindow).toBe(4096);
    expect(report.truncated).toBe(true);
  });
});

describe("prepareRunPrompt: hooks and skills", () => {
  it("agent:bootstrap adds and removes files; plugin fields land in the system prompt and the user prompt", async () => {
    writeFileSync(join(ws, "AGENTS.md"), "agents text");
    writeFileSync(join(ws, "SOUL.md"), "original soul");
    const internal = new InternalHookRegistry();
    internal.register("agent:bootstrap", (event) => {
      const files = event.context.bootstrapFiles as { name: string; path: string; content?: string }[];
      const soul = files.findIndex((f) => f.name === "SOUL.md");
      files.splice(soul, 1);
      files.push({ name: "EXTRA.md", path: "/virtual/EXTRA.md", content: "extra from hook" });
    });
    const hooks = new HookRunner([
      {
        pluginId: "ctx",
        hookName: "before_prompt_build",
        priority: 0,
        handler: (() => ({
          prependContext: "Today is a holiday.",
          appendSystemContext: "Sign as Tiller.",
        })) as ErasedHookHandler,
      },
    ]);
    const r = await prepareRunPrompt({
      agentId: "main",
      workspaceDir: ws,
      prompt: "hello",
      hooks,
      internalHooks: internal,
    });
    expect(r.systemPrompt).toContain("## EXTRA.md\n\nextra from hook");
    expect(r.systemPrompt).not.toContain("original soul");
    expect(r.systemPrompt.endsWith("Sign as Tiller.")).toBe(true);
    expect(r.prompt).toBe("Today is a holiday.\n\nhello");
    expect(r.report.bootstrapFiles.map((f) => f.name)).toContain("EXTRA.md");
  });

  it("model hooks: before_model_resolve wins over the legacy before_agent_start, whose prompt fields still apply", async () => {
    const hooks = new HookRunner([
      {
        pluginId: "a",
        hookName: "before_model_resolve",
        priority: 0,
        handler: (() => ({ modelOverride: "m-new" })) as ErasedHookHandler,
      },
      {
        pluginId: "legacy",
        hookName: "before_agent_start",
        priority: 0,
        handler: (() => ({
          modelOverride: "m-old",
          providerOverride: "p",
          prependSystemContext: "LEGACY",
        })) as ErasedHookHandler,
      },
    ]);
    const m = await runModelHooks(hooks, "hi", {});
    expect(m).toMatchObject({ modelOverride: "m-new", providerOverride: "p" });
    const r = await prepareRunPrompt({ agentId: "main", workspaceDir: ws, prompt: "hi", legacyPrompt: m.legacyPrompt });
    expect(r.systemPrompt.startsWith("LEGACY")).toBe(true);
  });

  it("skills are snapshotted: listed in the prompt, env collected, later edits ignored until a new snapshot", async () => {
    const skillDir = join(ws, "skills", "weather");
    mkdirSync(skillDir, { recursive: true });
    writeFileSync(join(skillDir, "SKILL.md"), "---\nname: weather\ndescription: Get the forecast.\n---\nUse curl.");
    const home = join(dir, "home");
    mkdirSync(join(home, "skills", "weather"), { recursive: true });
    writeFileSync(join(home, "skills", "weather", "SKILL.md"), "---\nname: weather\ndescription: Home copy.\n---\n");
    const snapshot = takeSkillsSnapshot({
      workspaceDir: ws,
      home,
      config: { skills: { entries: { weather: { env: { WEATHER_KEY: "k1" } } } } },
    });
    expect(snapshot.skills.map((s) => s.description)).toEqual(["Get the forecast."]); // workspace wins
    expect(snapshot.env).toEqual({ WEATHER_KEY: "k1" });
    writeFileSync(join(skillDir, "SKILL.md"), "---\nname: weather\ndescription: Changed.\n---\n");
    const r = await prepareRunPrompt({ agentId: "main", workspaceDir: ws, prompt: "x", skills: snapshot });
    expect(r.systemPrompt).toContain("<description>Get the forecast.</description>");
    expect(r.systemPrompt).toContain(join(skillDir, "SKILL.md"));
    const sub = await prepareRunPrompt({
      agentId: "main",
      workspaceDir: ws,
      prompt: "x",
      skills: snapshot,
      mode: "minimal",
    });
    expect(sub.systemPrompt).not.toContain("available_skills");
  });

  it("the skills prompt is capped by count and size, and the left-out skills are reported", () => {
    for (let i = 0; i < 12; i++) {
      const d = join(ws, "skills", `s${i}`);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, "SKILL.md"), `---\nname: s${i}\ndescription: ${"d".repeat(100)}\n---\n`);
    }
    const snap = takeSkillsSnapshot({
      workspaceDir: ws,
      home: join(dir, "nohome"),
      maxSkillsInPrompt: 10,
      maxPromptChars: 1500,
    });
    expect(snap.skills).toHaveLength(12);
    expect(snap.prompt.length).toBeLessThanOrEqual(1500);
    expect(snap.droppedFromPrompt.length).toBeGreaterThanOrEqual(2);
  });
});
