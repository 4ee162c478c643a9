/**
 * pi's SDK assembly on Tiller, end to end against a loopback OpenAI-compatible provider: services → session
 * (tools, context files, extensions), the runtime that replaces sessions (new, fork, switch), print mode,
 * RpcClient driving the real CLI, the extension runtime, extension discovery and the package manager.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@tiller/ai";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSessionRuntime,
  type CreateAgentSessionRuntimeFactory,
  createAgentSession,
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  createExtensionRuntime,
  DefaultPackageManager,
  DefaultResourceLoader,
  defineTool,
  discoverAndLoadExtensions,
  loadEntriesFromFile,
  RpcClient,
  runPrintMode,
  SessionImportFileNotFoundError,
  SessionManager,
  SettingsManager,
} from "../src/index.js";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { CLI_SOURCE, REPO_ROOT, SOURCE_NODE_ARGS } from "./cli-helpers/spawn-cli.js";

let server: MockServer;
let fx: CliFixture;
let saved: NodeJS.ProcessEnv;
beforeAll(async () => {
  server = await startMockOpenAI((body) => ({ text: `echo: ${lastUserText(body)}` }));
});
afterAll(() => server.close());
beforeEach(() => {
  fx = makeFixture(server, "tiller-pi-runtime-");
  saved = { ...process.env };
  Object.assign(process.env, fx.env);
  const ext = join(fx.home, "extensions");
  mkdirSync(ext, { recursive: true });
  writeFileSync(
    join(ext, "recorder.ts"),
    `export default function (api) {
  const log = (globalThis.__piRuntimeLog ??= []);
  api.on("session_start", (e) => { log.push("start:" + e.reason); });
  api.on("session_shutdown", () => { log.push("shutdown"); });
  api.registerTool({ name: "ping", label: "ping", description: "answers pong", parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "pong" }], details: undefined }) });
}\n`,
  );
  writeFileSync(join(fx.project, "AGENTS.md"), "Project rule: answer briefly.");
  (globalThis as { __piRuntimeLog?: string[] }).__piRuntimeLog = [];
});
afterEach(() => {
  process.env = saved;
  fx.cleanup();
});

const log = () => (globalThis as { __piRuntimeLog?: string[] }).__piRuntimeLog ?? [];

const factory: CreateAgentSessionRuntimeFactory = async (o) => {
  const services = await createAgentSessionServices({ cwd: o.cwd, agentDir: o.agentDir });
  const created = await createAgentSessionFromServices({
    services,
    sessionManager: o.sessionManager,
    ...(o.sessionStartEvent ? { sessionStartEvent: o.sessionStartEvent } : {}),
  });
  return { ...created, services, diagnostics: services.diagnostics };
};

async function startRuntime(): Promise<AgentSessionRuntime> {
  const sessionManager = SessionManager.create(fx.project, join(fx.home, "sessions-test"));
  return createAgentSessionRuntime(factory, { cwd: fx.project, agentDir: fx.home, sessionManager });
}

describe("services, session and runtime", () => {
  it("builds a session with the built-in and extension tools, context files and the configured model", async () => {
    const runtime = await startRuntime();
    try {
      const { session } = runtime;
      expect(session.model.provider).toBe("mock");
      expect(session.agent.state.tools.map((t) => t.name)).toEqual(["read", "bash", "edit", "write", "ping"]);
      expect(session.agent.state.systemPrompt).toContain("Project rule: answer briefly.");
      expect(runtime.diagnostics).toEqual([]);
      expect(log()).toEqual(["start:startup"]);
      await session.prompt("hello there");
      expect(session.messages.at(-1)).toMatchObject({
        role: "assistant",
        content: [{ type: "text", text: "echo: hello there" }],
      });
      expect(server.requests.at(-1)?.tools?.map((t) => t.function.name)).toContain("ping");

      // pi's accessors on the session.
      expect(session.state).toBe(session.agent.state);
      expect(session.systemPrompt).toBe(session.agent.state.systemPrompt);
      expect(session.getActiveToolNames()).toEqual(["read", "bash", "edit", "write", "ping"]);
      expect(session.getLastAssistantText()).toBe("echo: hello there");
      expect(session.getSteeringMessages()).toEqual([]);
      session.setSessionName("named");
      expect(session.sessionName).toBe("named");
      session.setSteeringMode("all");
      expect(session.steeringMode).toBe("all");
      expect(session.agent.steeringMode).toBe("all");
      expect(session.followUpMode).toBe("one-at-a-time");
      expect(session.autoCompactionEnabled).toBe(true);
      session.setAutoCompactionEnabled(false);
      expect(session.autoCompactionEnabled).toBe(false);
      expect(JSON.parse(readFileSync(join(fx.home, "settings.json"), "utf8")).compaction).toEqual({ enabled: false });
    } finally {
      await runtime.dispose();
    }
    expect(log()).toEqual(["start:startup", "shutdown"]);
  });

  it("replaces the session on newSession, fork and switchSession, shutting the old one down first", async () => {
    const runtime = await startRuntime();
    try {
      await runtime.session.prompt("first question");
      const firstFile = runtime.session.sessionFile as string;
      const firstId = runtime.session.sessionId;
      const userEntry = runtime.session.sessionManager.getEntries().find((e) => e.type === "message")?.id as string;

      await runtime.newSession();
      expect(runtime.session.sessionId).not.toBe(firstId);
      expect(runtime.session.messages).toEqual([]);
      expect(log()).toEqual(["start:startup", "shutdown", "start:new"]);

      await runtime.switchSession(firstFile);
      expect(runtime.session.sessionId).toBe(firstId);
      expect(runtime.session.messages).toHaveLength(2);
      // Switching to the file already open reloads it (its lock is released first).
      await runtime.switchSession(firstFile);
      expect(runtime.session.sessionId).toBe(firstId);

      const forked = await runtime.fork(userEntry);
      expect(forked).toEqual({ cancelled: false, selectedText: "first question" });
      expect(runtime.session.sessionId).not.toBe(firstId);
      expect(runtime.session.messages).toEqual([]);
      expect(log().filter((l) => l.startsWith("start:"))).toEqual([
        "start:startup",
        "start:new",
        "start:resume",
        "start:resume",
        "start:fork",
      ]);
      // The fork's source file is intact and unlocked: it opens for writing again.
      SessionManager.open(firstFile).close();
      expect(loadEntriesFromFile(firstFile).filter((e) => e.type === "message")).toHaveLength(2);

      await runtime.importFromJsonl(firstFile);
      expect(runtime.session.messages).toHaveLength(2);
      expect(runtime.session.sessionId).not.toBe(firstId);
      expect(loadEntriesFromFile(runtime.session.sessionFile as string)[0]).toMatchObject({ parentSession: firstFile });
      await expect(runtime.importFromJsonl(join(fx.root, "missing.jsonl"))).rejects.toThrow(
        SessionImportFileNotFoundError,
      );
    } finally {
      await runtime.dispose();
    }
  });

  it("binds the extension runtime to the session; unbound, its actions refuse", async () => {
    expect(() => createExtensionRuntime().getSessionName()).toThrow(/not initialized/);
    const runtime = await startRuntime();
    try {
      const ext = runtime.services.resourceLoader.getExtensions().runtime;
      ext.setSessionName("named by an extension");
      expect(ext.getSessionName()).toBe("named by an extension");
      ext.setActiveTools(["read", "ping"]);
      expect(ext.getActiveTools()).toEqual(["read", "ping"]);
      expect(runtime.session.agent.state.tools.map((t) => t.name)).toEqual(["read", "ping"]);
      expect(ext.getAllTools().map((t) => t.name)).toContain("bash");
      await runtime.newSession();
      expect(() => ext.getSessionName()).toThrow(/stale/);
    } finally {
      await runtime.dispose();
    }
  });

  it("runPrintMode prints the final answer (text) or every event (json)", async () => {
    const runtime = await startRuntime();
    const out: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    let code: number;
    let jsonCode: number;
    try {
      code = await runPrintMode(runtime, { mode: "text", initialMessage: "one", messages: ["two"] });
      jsonCode = await runPrintMode(runtime, { mode: "json", initialMessage: "three" });
    } finally {
      process.stdout.write = write;
      await runtime.dispose();
    }
    expect(code).toBe(0);
    expect(jsonCode).toBe(0);
    expect(out[0]).toBe("echo: two\n");
    const events = out.slice(1).map((l) => JSON.parse(l) as { type: string });
    expect(events[0]?.type).toBe("session");
    expect(events.map((e) => e.type)).toContain("agent_end");
  });
});

describe("createAgentSession with pi's options", () => {
  it("takes tool names, customTools and a resource loader, and wires the loader's extensions", async () => {
    const loader = new DefaultResourceLoader({ cwd: fx.project, agentDir: fx.home, appendSystemPrompt: ["Be kind."] });
    await loader.reload();
    const seen: string[] = [];
    const shout = defineTool({
      name: "shout",
      label: "shout",
      description: "upper-cases",
      parameters: Type.Object({ text: Type.String() }),
      async execute(_id, p, _s, _u, ctx) {
        seen.push(ctx.cwd);
        return { content: [{ type: "text", text: p.text.toUpperCase() }], details: undefined };
      },
    });
    const { session } = await createAgentSession({
      cwd: fx.project,
      agentDir: fx.home,
      sessionManager: SessionManager.inMemory(fx.project),
      tools: ["read", "ls"],
      customTools: [shout],
      resourceLoader: loader,
    });
    try {
      expect(session.agent.state.tools.map((t) => t.name)).toEqual(["read", "ls", "shout", "ping"]);
      expect(session.agent.state.systemPrompt).toContain("Project rule: answer briefly.");
      expect(session.agent.state.systemPrompt).toContain("Be kind.");
      const shoutTool = session.agent.state.tools.find((t) => t.name === "shout");
      const r = await shoutTool?.execute("1", { text: "hi" });
      expect(r?.content).toEqual([{ type: "text", text: "HI" }]);
      expect(seen).toEqual([fx.project]);
      loader.getExtensions().runtime.setSessionName("via loader");
      expect(session.sessionManager.getSessionName()).toBe("via loader");
      await expect(
        createAgentSession({
          cwd: fx.project,
          agentDir: fx.home,
          sessionManager: SessionManager.inMemory(fx.project),
          tools: ["nope"],
        }),
      ).rejects.toThrow(/unknown tool "nope"/);
      const bare = await createAgentSession({
        cwd: fx.project,
        agentDir: fx.home,
        sessionManager: SessionManager.inMemory(fx.project),
        tools: ["read"],
        customTools: [shout],
        noTools: "all",
      });
      expect(bare.session.agent.state.tools).toEqual([]);
      bare.session.dispose();
    } finally {
      session.dispose();
    }
  });
});

describe("RpcClient", () => {
  it("drives the real CLI in RPC mode", async () => {
    const client = new RpcClient({
      cliPath: CLI_SOURCE,
      nodeArgs: SOURCE_NODE_ARGS,
      cwd: fx.project,
      env: fx.env as Record<string, string>,
      args: ["--no-session"],
    });
    await client.start();
    try {
      const events = await client.promptAndWait("over rpc");
      expect(events.at(-1)?.type).toBe("agent_end");
      expect(await client.getLastAssistantText()).toBe("echo: over rpc");
      const state = await client.getState();
      expect(state.model?.provider).toBe("mock");
      expect(state.steeringMode).toBe("one-at-a-time");
      expect(state.autoCompactionEnabled).toBe(true);
      expect(state.sessionFile).toBeUndefined();
      expect(state.messageCount).toBe(2);
      expect((await client.getMessages()).map((m) => m.role)).toEqual(["user", "assistant"]);
      // pi's session commands: cycling goes through the models with auth (no --models scope).
      const cycled = await client.cycleModel();
      expect(cycled?.isScoped).toBe(false);
      expect(cycled?.model.id).not.toBe(state.model?.id);
      expect((await client.getState()).model?.id).toBe(cycled?.model.id);
      const level = await client.cycleThinkingLevel();
      expect((await client.getState()).thinkingLevel).toBe(level?.level ?? state.thinkingLevel);
      const bash = await client.bash("echo from-rpc; exit 4");
      expect(bash).toMatchObject({ output: "from-rpc\n", exitCode: 4, cancelled: false, truncated: false });
      expect((await client.getMessages()).map((m) => m.role)).toEqual(["user", "assistant", "bashExecution"]);
      await client.setSteeringMode("all");
      await client.setAutoCompaction(false);
      await client.setAutoRetry(false);
      await client.abortRetry();
      await client.abortBash();
      expect(await client.getState()).toMatchObject({ steeringMode: "all", autoCompactionEnabled: false });
      await expect(client.setAutoRetry("yes" as never)).rejects.toThrow(/"enabled" must be true or false/);
      await expect(client.setSteeringMode("some" as never)).rejects.toThrow(/"mode" must be/);
      // --no-session: nothing on disk to export, and the answer says why.
      await expect(client.exportHtml(join(fx.project, "out.html"))).rejects.toThrow(/in-memory session/);
    } finally {
      await client.stop();
    }
  });
});

describe("runRpcMode", () => {
  it("serves a runtime built with the SDK over RPC", async () => {
    mkdirSync(join(fx.home, "prompts"), { recursive: true });
    writeFileSync(join(fx.home, "prompts", "review.md"), "---\ndescription: Review the diff\n---\nReview $1\n");
    const client = new RpcClient({
      cliPath: join(REPO_ROOT, "packages", "coding-agent", "test", "rpc-runtime-child.ts"),
      nodeArgs: SOURCE_NODE_ARGS,
      cwd: fx.project,
      env: fx.env as Record<string, string>,
    });
    await client.start();
    try {
      await client.promptAndWait("from the sdk");
      expect(await client.getLastAssistantText()).toBe("echo: from the sdk");
      expect(server.requests.at(-1)?.tools?.map((t) => t.function.name)).toEqual(["read", "ping"]);
      expect((await client.getCommands()).map((c) => [c.name, c.source, c.sourceInfo.path])).toEqual([
        ["review", "prompt", join(fx.home, "prompts", "review.md")],
      ]);
    } finally {
      await client.stop();
    }
  });
});

describe("discoverAndLoadExtensions", () => {
  it("loads discovered and configured extensions and lists the ones that failed", async () => {
    const broken = join(fx.project, "broken.ts");
    writeFileSync(broken, "export default function () { throw new Error('cannot start'); }\n");
    const r = await discoverAndLoadExtensions([broken, "missing.ts"], fx.project, fx.home);
    expect(r.extensions.map((e) => e.path)).toEqual([join(fx.home, "extensions", "recorder.ts")]);
    expect(r.extensions[0]?.resolvedPath).toBe(r.extensions[0]?.path);
    expect(r.errors.map((e) => [e.path, e.error])).toEqual([
      [join(fx.project, "missing.ts"), "file not found"],
      [broken, "cannot start"],
    ]);
    expect(r.runner.getTools().map((t) => t.name)).toEqual(["ping"]);
    expect(() => r.runtime.getActiveTools()).toThrow(/not initialized/);
  });
});

describe("DefaultPackageManager", () => {
  it("resolves a local package's resources from its manifest and persists sources in settings", async () => {
    const pkg = join(fx.root, "my-pkg");
    mkdirSync(join(pkg, "skills"), { recursive: true });
    mkdirSync(join(pkg, "prompts"), { recursive: true });
    writeFileSync(join(pkg, "ext.ts"), "export default () => {};\n");
    writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "my-pkg", tiller: { extensions: ["ext.ts"] } }));
    const settingsManager = SettingsManager.create(fx.project, fx.home);
    const pm = new DefaultPackageManager({ cwd: fx.project, agentDir: fx.home, settingsManager });
    const events: string[] = [];
    pm.setProgressCallback((e) => events.push(`${e.type}:${e.action}`));
    await pm.installAndPersist(pkg);
    expect(events).toEqual(["start:install", "complete:install"]);
    expect(pm.addSourceToSettings(pkg)).toBe(false);
    expect(SettingsManager.create(fx.project, fx.home).get().packages).toEqual([pkg]);
    expect(pm.listConfiguredPackages()).toEqual([{ source: pkg, scope: "user", filtered: false, installedPath: pkg }]);
    const resolved = await pm.resolve();
    expect(resolved.extensions.map((r) => r.path)).toEqual([join(pkg, "ext.ts")]);
    // The manifest is the complete list: its package's skills/ and prompts/ folders are not added.
    expect(resolved.skills.map((r) => r.path)).toEqual([]);
    expect(resolved.prompts.map((r) => r.path)).toEqual([]);
    const temporary = await pm.resolveExtensionSources([join(fx.root, "none"), pkg], { temporary: true });
    expect(temporary.extensions.map((r) => [r.path, r.metadata.scope])).toEqual([[join(pkg, "ext.ts"), "temporary"]]);

    pm.addSourceToSettings("npm:@nowhere/not-installed@1.0.0");
    await expect(pm.resolve(async () => "error")).rejects.toThrow(
      "package not installed: npm:@nowhere/not-installed@1.0.0",
    );
    expect((await pm.resolve(async () => "skip")).extensions).toHaveLength(1);
    expect(await pm.removeAndPersist("npm:@nowhere/not-installed@1.0.0")).toBe(true);
    expect(await pm.removeAndPersist(pkg)).toBe(true);
    expect(existsSync(pkg)).toBe(true);
    expect(pm.listConfiguredPackages()).toEqual([]);
  });

  it("uses a package's skills/ and prompts/ folders when its manifest does not list them", async () => {
    const pkg = join(fx.root, "plain-pkg");
    mkdirSync(join(pkg, "skills"), { recursive: true });
    mkdirSync(join(pkg, "extensions"), { recursive: true });
    const pm = new DefaultPackageManager({
      cwd: fx.project,
      agentDir: fx.home,
      settingsManager: SettingsManager.inMemory(),
    });
    const r = await pm.resolveExtensionSources([pkg]);
    expect(r.skills.map((x) => x.path)).toEqual([join(pkg, "skills")]);
    expect(r.extensions.map((x) => x.path)).toEqual([join(pkg, "extensions")]);
    expect(r.prompts).toEqual([]);
  });
});
