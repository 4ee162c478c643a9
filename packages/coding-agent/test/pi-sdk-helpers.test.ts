/**
 * pi's smaller SDK names on Tiller: tool definitions and tool-event guards, the file mutation queue, the event
 * bus, auth backends, shell config, frontmatter and skill helpers, source info, visual-line truncation, and the
 * agent dir / version. Compared with pi's result where pi's is right.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { Type } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  AuthStorage,
  copyToClipboard,
  createEventBus,
  createLsToolDefinition,
  createReadToolDefinition,
  createSyntheticSourceInfo,
  createWriteToolDefinition,
  defineTool,
  type ExtensionContext,
  ExtensionRunner,
  FileAuthStorageBackend,
  formatSkillsForPrompt,
  getAgentDir,
  getShellConfig,
  InMemoryAuthStorageBackend,
  isBashToolResult,
  isReadToolResult,
  isToolCallEventType,
  loadProjectContextFiles,
  loadSkillsFromDir,
  ModelRegistry,
  parseSkillBlock,
  SettingsManager,
  stripFrontmatter,
  type ToolResultEvent,
  truncateToVisualLines,
  VERSION,
  withFileMutationQueue,
  wrapRegisteredTool,
  wrapRegisteredTools,
} from "../src/index.js";
import { bareContext } from "./tool-helpers.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-pi-sdk-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ctx = (cwd: string): ExtensionContext => bareContext(cwd);

describe("tool definitions", () => {
  it("create*ToolDefinition runs the built-in tool, with pi's extra context argument", async () => {
    writeFileSync(join(dir, "a.txt"), "alpha\nbeta\n");
    const read = createReadToolDefinition(dir);
    expect(read.name).toBe("read");
    const r = await read.execute("c1", { path: "a.txt" }, undefined, undefined, ctx(dir));
    expect(JSON.stringify(r.content)).toContain("beta");
    const write = createWriteToolDefinition(dir);
    await write.execute("c2", { path: "b.txt", content: "new" }, undefined, undefined, ctx(dir));
    expect(readFileSync(join(dir, "b.txt"), "utf8")).toBe("new");
    const ls = createLsToolDefinition(dir);
    expect(JSON.stringify((await ls.execute("c3", {}, undefined, undefined, ctx(dir))).content)).toContain("b.txt");
  });

  it("wrapRegisteredTool(s) bind a definition to the runner's current context", async () => {
    const seen: string[] = [];
    const def = defineTool({
      name: "where",
      label: "where",
      description: "says the cwd",
      parameters: Type.Object({ x: Type.Number() }),
      async execute(_id, params, _signal, _onUpdate, context) {
        seen.push(`${context.cwd}:${params.x}`);
        return { content: [{ type: "text", text: context.cwd }], details: undefined };
      },
    });
    const runner = new ExtensionRunner([]);
    runner.setContext(ctx("/first"));
    const tool = wrapRegisteredTool(
      { definition: def, sourceInfo: createSyntheticSourceInfo("<t>", { source: "test" }) },
      runner,
    );
    await tool.execute("1", { x: 1 });
    runner.setContext(ctx("/second"));
    const [again] = wrapRegisteredTools(
      [{ definition: def, sourceInfo: createSyntheticSourceInfo("<t>", { source: "t" }) }],
      runner,
    );
    await again?.execute("2", { x: 2 });
    await tool.execute("3", { x: 3 });
    expect(seen).toEqual(["/first:1", "/second:2", "/second:3"]);
    expect(tool.name).toBe("where");
    expect("promptSnippet" in tool).toBe(false);
  });

  it("the tool-event guards match pi's", () => {
    const ev = (toolName: string): ToolResultEvent => ({
      type: "tool_result",
      toolCallId: "c",
      toolName,
      input: {},
      content: [],
      details: undefined,
      isError: false,
    });
    for (const name of ["bash", "read", "edit", "other"]) {
      expect(isBashToolResult(ev(name))).toBe(pi.isBashToolResult(ev(name) as never));
      expect(isReadToolResult(ev(name))).toBe(pi.isReadToolResult(ev(name) as never));
    }
    const call = { type: "tool_call" as const, toolCallId: "c", toolName: "bash", input: { command: "ls" } };
    expect(isToolCallEventType("bash", call)).toBe(true);
    expect(isToolCallEventType("read", call)).toBe(pi.isToolCallEventType("read", call as never));
  });
});

describe("withFileMutationQueue", () => {
  it("runs mutations of one file one after another, in call order, and other files concurrently", async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const a1 = withFileMutationQueue(join(dir, "f"), async () => {
      order.push("a1 start");
      await gate;
      order.push("a1 end");
    });
    const a2 = withFileMutationQueue(join(dir, ".", "f"), async () => {
      order.push("a2");
    });
    const b = withFileMutationQueue(join(dir, "g"), async () => {
      order.push("b");
    });
    await b;
    expect(order).toEqual(["a1 start", "b"]);
    release();
    await Promise.all([a1, a2]);
    expect(order).toEqual(["a1 start", "b", "a1 end", "a2"]);
  });
});

describe("createEventBus", () => {
  it("delivers per channel, unsubscribes, survives a throwing handler, and clears", () => {
    const bus = createEventBus();
    const got: unknown[] = [];
    const off = bus.on("a", (d) => got.push(["a", d]));
    bus.on("a", () => {
      throw new Error("bad handler");
    });
    bus.on("b", (d) => got.push(["b", d]));
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      bus.emit("a", 1);
    } finally {
      console.error = original;
    }
    bus.emit("b", 2);
    off();
    bus.emit("a", 3);
    bus.clear();
    bus.emit("b", 4);
    expect(got).toEqual([
      ["a", 1],
      ["b", 2],
    ]);
    expect(errors).toHaveLength(1);
  });
});

describe("auth storage backends", () => {
  it("FileAuthStorageBackend writes auth.json with mode 0600 and AuthStorage reads it back", async () => {
    const path = join(dir, "home", "auth.json");
    const storage = AuthStorage.fromStorage(new FileAuthStorageBackend(path));
    storage.set("openai", { type: "api_key", key: "sk-1" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await AuthStorage.create(path).getApiKey("openai")).toBe("sk-1");
    // pi reads what Tiller wrote.
    expect(pi.AuthStorage.create(path).get("openai")).toEqual({ type: "api_key", key: "sk-1" });
  });

  it("withLockAsync loses no update when two writers interleave", async () => {
    const path = join(dir, "auth.json");
    const a = new FileAuthStorageBackend(path);
    const b = new FileAuthStorageBackend(path);
    const add = (backend: FileAuthStorageBackend, key: string) =>
      backend.withLockAsync(async (current) => {
        await new Promise((r) => setImmediate(r));
        const data = current ? (JSON.parse(current) as Record<string, unknown>) : {};
        data[key] = { type: "api_key", key };
        return { result: key, next: JSON.stringify(data) };
      });
    await Promise.all([add(a, "one"), add(b, "two"), add(a, "three")]);
    expect(Object.keys(JSON.parse(readFileSync(path, "utf8"))).sort()).toEqual(["one", "three", "two"]);
  });

  it("InMemoryAuthStorageBackend keeps credentials without a file, and a corrupt file is never overwritten", async () => {
    const mem = AuthStorage.fromStorage(new InMemoryAuthStorageBackend());
    mem.set("anthropic", { type: "api_key", key: "k" });
    expect(await mem.getApiKey("anthropic")).toBe("k");
    const path = join(dir, "auth.json");
    writeFileSync(path, "{ not json");
    const broken = AuthStorage.fromStorage(new FileAuthStorageBackend(path));
    expect(broken.drainErrors()).toHaveLength(1);
    expect(() => broken.set("x", { type: "api_key", key: "y" })).toThrow(/not valid JSON/);
    expect(readFileSync(path, "utf8")).toBe("{ not json");
  });

  it("reports where a key comes from, resolves a fallback last, and logs out", async () => {
    const storage = AuthStorage.fromStorage(new InMemoryAuthStorageBackend());
    storage.set("openai", { type: "api_key", key: "stored" });
    storage.setRuntimeApiKey("anthropic", "rt");
    storage.setFallbackResolver((p) => (p === "local" ? "from-models-json" : undefined));
    expect(storage.getAuthStatus("openai")).toEqual({ configured: true, source: "stored" });
    expect(storage.getAuthStatus("anthropic")).toEqual({ configured: true, source: "runtime" });
    expect(storage.getAuthStatus("local")).toEqual({ configured: true, source: "fallback" });
    expect(await storage.getApiKey("local")).toBe("from-models-json");
    expect(await storage.getApiKey("local", { includeFallback: false })).toBeUndefined();
    expect(storage.getAuthStatus("nobody-xyz")).toEqual({ configured: false });
    storage.logout("openai");
    expect(storage.getAll()).toEqual({});
  });
});

describe("SettingsManager, pi's accessors", () => {
  it("reads and writes the settings file so that pi's SettingsManager reads the same values", async () => {
    const home = join(dir, "home");
    const cwd = join(dir, "project");
    mkdirSync(join(cwd, ".tiller"), { recursive: true });
    const sm = SettingsManager.create(cwd, home);
    sm.setDefaultModelAndProvider("anthropic", "claude-x");
    sm.set("compaction", { reserveTokens: 9000 });
    sm.setCompactionEnabled(false);
    sm.setSteeringMode("all");
    sm.setRetryEnabled(false);
    sm.setPackages(["npm:some-pkg", { source: "./local", skills: ["s"] }]);
    await sm.flush();
    expect(sm.getCompactionSettings()).toEqual({ enabled: false, reserveTokens: 9000, keepRecentTokens: 20000 });
    expect(sm.getGlobalSettings().compaction).toEqual({ reserveTokens: 9000, enabled: false });
    const theirs = pi.SettingsManager.create(cwd, home);
    expect(theirs.getDefaultProvider()).toBe(sm.getDefaultProvider());
    expect(theirs.getDefaultModel()).toBe("claude-x");
    expect(theirs.getCompactionSettings()).toEqual(sm.getCompactionSettings());
    expect(theirs.getSteeringMode()).toBe(sm.getSteeringMode());
    expect(theirs.getRetryEnabled()).toBe(false);
    expect(theirs.getPackages()).toEqual(sm.getPackages());
    sm.applyOverrides({ defaultModel: "override" });
    expect(sm.getDefaultModel()).toBe("override");
    expect(SettingsManager.create(cwd, home).getDefaultModel()).toBe("claude-x");
    expect(sm.drainErrors()).toEqual([]);
  });
});

describe("ModelRegistry, pi's accessors", () => {
  it("resolves keys, headers and auth status from models.json as pi does", async () => {
    const path = join(dir, "models.json");
    writeFileSync(
      path,
      JSON.stringify({
        providers: {
          local: {
            baseUrl: "http://127.0.0.1:9/v1",
            api: "openai-completions",
            apiKey: "TILLER_TEST_LOCAL_KEY",
            headers: { "x-team": "a" },
            models: [{ id: "m1" }],
          },
          literal: {
            baseUrl: "http://127.0.0.1:9/v1",
            api: "openai-completions",
            apiKey: "sk-literal",
            models: [{ id: "m2" }],
          },
        },
      }),
    );
    process.env.TILLER_TEST_LOCAL_KEY = "from-env";
    try {
      const ours = ModelRegistry.create(AuthStorage.inMemory(), path);
      const theirs = pi.ModelRegistry.create(pi.AuthStorage.inMemory(), path);
      expect(ours.getError()).toBeUndefined();
      for (const [provider, id] of [
        ["local", "m1"],
        ["literal", "m2"],
      ] as const) {
        const m = ours.find(provider, id);
        const pm = theirs.find(provider, id);
        if (!m || !pm) throw new Error(`model ${provider}/${id} missing`);
        expect(await ours.getApiKeyAndHeaders(m)).toEqual(await theirs.getApiKeyAndHeaders(pm));
        expect(ours.getProviderAuthStatus(provider)).toEqual(theirs.getProviderAuthStatus(provider));
        expect(await ours.getApiKeyForProvider(provider)).toBe(await theirs.getApiKeyForProvider(provider));
        expect(ours.isUsingOAuth(m)).toBe(false);
      }
      expect(ours.getProviderAuthStatus("local")).toEqual({
        configured: true,
        source: "environment",
        label: "TILLER_TEST_LOCAL_KEY",
      });
      expect(ours.getProviderAuthStatus("nobody-xyz")).toEqual(theirs.getProviderAuthStatus("nobody-xyz"));
      // pi names anthropic after its OAuth subscription login, which Tiller does not have.
      expect(ours.getProviderDisplayName("anthropic")).toBe("Anthropic");
      expect(ours.getProviderDisplayName("local")).toBe(theirs.getProviderDisplayName("local"));
    } finally {
      delete process.env.TILLER_TEST_LOCAL_KEY;
    }
  });
});

describe("copyToClipboard", () => {
  it("pipes the text into the platform clipboard tool, and fails clearly when there is none", async () => {
    // No display server here: a stand-in `wl-copy` on PATH records what the real one would receive.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const out = join(dir, "clipboard.txt");
    writeFileSync(join(bin, "wl-copy"), `#!/bin/sh\ncat > "${out}"\n`, { mode: 0o755 });
    const env = { PATH: process.env.PATH, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
    try {
      process.env.PATH = `${bin}:${process.env.PATH}`;
      process.env.WAYLAND_DISPLAY = "wayland-test";
      await copyToClipboard("héllo\nclipboard");
      expect(readFileSync(out, "utf8")).toBe("héllo\nclipboard");
      process.env.PATH = join(dir, "empty-path");
      await expect(copyToClipboard("x")).rejects.toThrow(/no clipboard available/);
    } finally {
      process.env.PATH = env.PATH;
      if (env.WAYLAND_DISPLAY === undefined) delete process.env.WAYLAND_DISPLAY;
      else process.env.WAYLAND_DISPLAY = env.WAYLAND_DISPLAY;
    }
  });
});

describe("small helpers", () => {
  it("getShellConfig names an existing shell with -c, and rejects a missing custom one like pi", () => {
    const cfg = getShellConfig();
    expect(cfg.args).toEqual(["-c"]);
    expect(statSync(cfg.shell).isFile()).toBe(true);
    expect(getShellConfig("/bin/sh")).toEqual(pi.getShellConfig("/bin/sh"));
    expect(() => getShellConfig("/no/such/shell")).toThrow("Custom shell path not found: /no/such/shell");
    expect(() => pi.getShellConfig("/no/such/shell")).toThrow("Custom shell path not found: /no/such/shell");
  });

  it("stripFrontmatter and parseSkillBlock agree with pi", () => {
    for (const text of [
      "---\nname: x\n---\nbody\n",
      "no frontmatter\r\n",
      "---\nname: x\n---\n",
      "---\r\na: 1\r\n---\r\nwin",
      "---\nname: x\n---\n\n\nbody  \n\n",
      "---\nunclosed\nbody",
    ]) {
      expect(stripFrontmatter(text)).toBe(pi.stripFrontmatter(text));
    }
    for (const text of [
      '<skill name="deploy" location="/s/SKILL.md">\nSteps\n</skill>\n\nship it',
      '<skill name="deploy" location="/s/SKILL.md">\nSteps\n</skill>',
      "plain text",
    ]) {
      expect(parseSkillBlock(text)).toEqual(pi.parseSkillBlock(text));
    }
    expect(parseSkillBlock('<skill name="a" location="b">\nc\n</skill>\n\nd')?.userMessage).toBe("d");
  });

  it("loadSkillsFromDir loads one folder's skills and reports invalid ones", () => {
    const root = join(dir, "skills");
    mkdirSync(join(root, "deploy"), { recursive: true });
    writeFileSync(join(root, "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Ships the app\n---\nSteps\n");
    mkdirSync(join(root, "broken"), { recursive: true });
    writeFileSync(join(root, "broken", "SKILL.md"), "---\nname: broken\n---\nno description\n");
    mkdirSync(join(root, "manual"), { recursive: true });
    writeFileSync(
      join(root, "manual", "SKILL.md"),
      "---\nname: manual\ndescription: Only on request\ndisable-model-invocation: true\n---\nSteps\n",
    );
    const r = loadSkillsFromDir({ dir: root, source: "user" });
    expect(r.skills.map((s) => [s.name, s.description, s.disableModelInvocation])).toEqual([
      ["deploy", "Ships the app", false],
      ["manual", "Only on request", true],
    ]);
    expect(r.skills[0]?.sourceInfo).toEqual({
      path: join(root, "deploy", "SKILL.md"),
      source: "user",
      scope: "user",
      origin: "top-level",
      baseDir: join(root, "deploy"),
    });
    // Like pi, a skill the model may not invoke is not listed to it.
    const listed = formatSkillsForPrompt(r.skills);
    expect(listed).toContain("deploy");
    expect(listed).not.toContain("manual");
    expect(pi.formatSkillsForPrompt(pi.loadSkillsFromDir({ dir: root, source: "user" }).skills)).not.toContain(
      "Only on request",
    );
    expect(r.diagnostics.length).toBeGreaterThan(0);
    const theirs = pi.loadSkillsFromDir({ dir: root, source: "user" });
    expect(theirs.skills.map((s) => [s.name, s.disableModelInvocation])).toEqual(
      r.skills.map((s) => [s.name, s.disableModelInvocation]),
    );
    expect(loadSkillsFromDir({ dir: join(dir, "none"), source: "user" })).toEqual({ skills: [], diagnostics: [] });
  });

  it("loadProjectContextFiles reads the home file first, then the project's, like pi", () => {
    const home = join(dir, "home");
    const project = join(dir, "project", "sub");
    mkdirSync(home, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(home, "AGENTS.md"), "global rules");
    writeFileSync(join(dir, "project", "AGENTS.md"), "project rules");
    const ours = loadProjectContextFiles({ cwd: project, agentDir: home });
    expect(ours.map((f) => f.content)).toEqual(["global rules", "project rules"]);
    expect(ours).toEqual(pi.loadProjectContextFiles({ cwd: project, agentDir: home }));
  });

  it("createSyntheticSourceInfo matches pi", () => {
    expect(createSyntheticSourceInfo("/x.ts", { source: "sdk" })).toEqual(
      pi.createSyntheticSourceInfo("/x.ts", { source: "sdk" }),
    );
    const full = { source: "cli", scope: "project" as const, origin: "package" as const, baseDir: "/b" };
    expect(createSyntheticSourceInfo("/x.ts", full)).toEqual(pi.createSyntheticSourceInfo("/x.ts", full));
  });

  it("truncateToVisualLines wraps, pads and keeps the last lines like pi", () => {
    const cases: Array<[string, number, number, number?]> = [
      ["hello world this is a long line of text\nshort\n\nend", 3, 12],
      ["hello world this is a long line", 10, 12, 1],
      ["abcdefghijklmnopqrstuvwxyz", 10, 10],
      ["a  b   c", 5, 4],
      ["x\tb", 3, 10],
      ["日本語のテキスト", 5, 6],
      ["", 3, 10],
    ];
    for (const c of cases) expect(truncateToVisualLines(...c)).toEqual(pi.truncateToVisualLines(...c));
  });

  it("getAgentDir is the Tiller home and VERSION the package version", () => {
    const before = process.env.TILLER_HOME;
    process.env.TILLER_HOME = join(dir, "th");
    try {
      expect(getAgentDir()).toBe(join(dir, "th"));
    } finally {
      if (before === undefined) delete process.env.TILLER_HOME;
      else process.env.TILLER_HOME = before;
    }
    const pkg = JSON.parse(readFileSync(join(__dirname, "..", "package.json"), "utf8")) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
