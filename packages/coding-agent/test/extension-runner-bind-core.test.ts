/**
 * A host written against pi builds its own ExtensionRunner over loaded extensions (`new ExtensionRunner(extensions,
 * runtime, cwd, sessionManager, modelRegistry)`) and binds it with `bindCore`: the extensions' actions then act
 * through the host's actions, their context reads the host's session, and providers they registered while loading
 * are registered. The same extension file runs through pi's loader and runner and through Tiller's, side by side.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as tiller from "../src/index.js";

let dir: string;
let extensionFile: string;

/** Reports what its handler's context reads as a custom message, and acts on the session. */
const EXTENSION = `
export default function (pi) {
  pi.registerProvider("corp", {
    baseUrl: "http://127.0.0.1:9/v1",
    api: "openai-completions",
    apiKey: "CORP_KEY",
    models: [{ id: "corp-1", name: "Corp 1", reasoning: false, input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 }],
  });
  pi.on("session_start", async (_event, ctx) => {
    pi.sendMessage({ customType: "seen", display: false, content: JSON.stringify({
      model: ctx.model?.id, hasUI: ctx.hasUI, cwd: ctx.cwd, idle: ctx.isIdle(), pending: ctx.hasPendingMessages(),
      prompt: ctx.getSystemPrompt(), usage: ctx.getContextUsage(), session: ctx.sessionManager.getCwd(),
      registered: ctx.modelRegistry.find("corp", "corp-1")?.name ?? null,
    }) });
    pi.setSessionName("named by extension");
    pi.setThinkingLevel(pi.getThinkingLevel() === "off" ? "high" : "off");
  });
  pi.registerCommand("late", { handler: async () => pi.registerProvider("late", { baseUrl: "http://127.0.0.1:9/v2" }) });
}
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-bind-core-"));
  extensionFile = join(dir, "reporter.mjs");
  writeFileSync(extensionFile, EXTENSION);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Impl = typeof pi | typeof tiller;

/** What the host's actions saw, for one implementation. */
async function runHost(impl: Impl, options: { ui: boolean; providerActions: boolean }) {
  // One host program for both: typed with Tiller's names (the calls are the same in pi's).
  const sdk = impl as typeof tiller;
  const loaded = await sdk.discoverAndLoadExtensions([extensionFile], dir, join(dir, "agent"));
  expect(loaded.errors).toEqual([]);
  const sessionManager = sdk.SessionManager.inMemory(dir);
  const modelRegistry = sdk.ModelRegistry.inMemory(sdk.AuthStorage.inMemory());
  const runner = new sdk.ExtensionRunner(loaded.extensions, loaded.runtime, dir, sessionManager, modelRegistry);
  const calls: unknown[][] = [];
  const registered: string[] = [];
  let thinking = "off";
  const actions: tiller.ExtensionActions = {
    sendMessage: (message) => calls.push(["sendMessage", message.customType, JSON.parse(String(message.content))]),
    sendUserMessage: (content) => calls.push(["sendUserMessage", content]),
    appendEntry: (customType) => calls.push(["appendEntry", customType]),
    setSessionName: (name) => calls.push(["setSessionName", name]),
    getSessionName: () => undefined,
    setLabel: () => {},
    getActiveTools: () => [],
    getAllTools: () => [],
    setActiveTools: () => {},
    refreshTools: () => {},
    getCommands: () => [],
    setModel: async () => true,
    getThinkingLevel: () => thinking as "off",
    setThinkingLevel: (level) => {
      thinking = level;
      calls.push(["setThinkingLevel", level]);
    },
  };
  const model = { id: "host-model", provider: "host" } as never;
  runner.bindCore(
    actions,
    {
      getModel: () => model,
      isIdle: () => false,
      getSignal: () => undefined,
      abort: () => {},
      hasPendingMessages: () => true,
      shutdown: () => {},
      getContextUsage: () => ({ tokens: null, contextWindow: 1000, percent: null }),
      compact: () => {},
      getSystemPrompt: () => "host prompt",
    },
    options.providerActions ? { registerProvider: (name) => registered.push(name) } : undefined,
  );
  if (options.ui) runner.setUIContext(tiller.createNoUIContext() as never);
  await runner.emit({ type: "session_start", reason: "startup" } as never);
  await runner.getCommand("late")?.handler("", runner.createCommandContext() as never);
  return { calls, registered, modelRegistry, runner };
}

describe("ExtensionRunner.bindCore (pi's host binding)", () => {
  it("routes the extensions' actions and context through the host, as pi's runner does", async () => {
    const ours = await runHost(tiller, { ui: false, providerActions: false });
    const theirs = await runHost(pi, { ui: false, providerActions: false });
    expect(ours.calls).toEqual([
      [
        "sendMessage",
        "seen",
        {
          model: "host-model",
          hasUI: false,
          cwd: dir,
          idle: false,
          pending: true,
          prompt: "host prompt",
          usage: { tokens: null, contextWindow: 1000, percent: null },
          session: dir,
          registered: "Corp 1",
        },
      ],
      ["setSessionName", "named by extension"],
      ["setThinkingLevel", "high"],
    ]);
    expect(ours.calls).toEqual(theirs.calls);
    // Providers queued while loading went to the model registry at binding, later ones at once.
    expect(ours.modelRegistry.find("corp", "corp-1")?.baseUrl).toBe("http://127.0.0.1:9/v1");
    expect(theirs.modelRegistry.find("corp", "corp-1")?.baseUrl).toBe("http://127.0.0.1:9/v1");
  });

  it("hands provider registrations to the host's providerActions when it gives them, and reports a UI once set", async () => {
    const ours = await runHost(tiller, { ui: true, providerActions: true });
    const theirs = await runHost(pi, { ui: true, providerActions: true });
    expect(ours.registered).toEqual(["corp", "late"]);
    expect(ours.registered).toEqual(theirs.registered);
    expect(ours.modelRegistry.find("corp", "corp-1")).toBeUndefined();
    expect(ours.runner.hasUI()).toBe(true);
    expect(ours.calls[0]?.[2]).toMatchObject({ hasUI: true });
    expect(theirs.calls[0]?.[2]).toMatchObject({ hasUI: true });
  });

  it("reports a provider the host refuses as a register_provider error and binds the rest", async () => {
    const loaded = await tiller.discoverAndLoadExtensions([extensionFile], dir, join(dir, "agent"));
    const runner = new tiller.ExtensionRunner(
      loaded.extensions,
      loaded.runtime,
      dir,
      tiller.SessionManager.inMemory(dir),
      tiller.ModelRegistry.inMemory(tiller.AuthStorage.inMemory()),
    );
    const errors: tiller.ExtensionError[] = [];
    runner.onError((e) => errors.push(e));
    const noop = () => {
      throw new Error("unused");
    };
    runner.bindCore(
      {
        ...loaded.runtime,
        sendMessage: () => {},
        setSessionName: () => {},
        getThinkingLevel: () => "off",
        setThinkingLevel: () => {},
      },
      {
        getModel: () => undefined,
        isIdle: () => true,
        getSignal: () => undefined,
        abort: noop,
        hasPendingMessages: () => false,
        shutdown: noop,
        getContextUsage: () => undefined,
        compact: noop,
        getSystemPrompt: () => "",
      },
      {
        registerProvider: () => {
          throw new Error("this host allows no providers");
        },
      },
    );
    expect(errors).toEqual([
      expect.objectContaining({
        extensionPath: extensionFile,
        event: "register_provider",
        error: "this host allows no providers",
      }),
    ]);
    await runner.emit({ type: "session_start", reason: "startup" });
    expect(errors).toHaveLength(1);
  });

  it("refuses bindCore on a runner built without pi's session parts", async () => {
    const loaded = await tiller.discoverAndLoadExtensions([extensionFile], dir, join(dir, "agent"));
    expect(() => loaded.runner.bindCore(loaded.runtime, {} as never)).toThrow(/pi's constructor/);
  });
});
