/**
 * An extension registers a provider with its own stream function (`ProviderConfig.streamSimple`) and asks for
 * the key as a bearer header (`authHeader`): a session on that provider's model is answered by the function,
 * which receives the key and the header; unregistering the provider removes its API again.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AssistantMessage,
  type Context,
  createAssistantMessageEventStream,
  getApiProvider,
  type Model,
  registerFauxProvider,
  type SimpleStreamOptions,
} from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAgentSessionFromServices,
  createAgentSessionServices,
  type ExtensionAPI,
  type ExtensionError,
  ModelRegistry,
  SessionManager,
} from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-provider-stream-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Answers with what it was given: the last user text, the key and the Authorization header. */
function echoStream(model: Model, context: Context, options?: SimpleStreamOptions) {
  const stream = createAssistantMessageEventStream();
  const last = context.messages[context.messages.length - 1];
  const content = last?.role === "user" ? last.content : [];
  const said = typeof content === "string" ? content : content.map((p) => (p.type === "text" ? p.text : "")).join("");
  const text = `echo ${said} key=${options?.apiKey} auth=${options?.headers?.Authorization}`;
  const message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: {
      input: 3,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 8,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: Date.now(),
  };
  queueMicrotask(() => {
    stream.push({ type: "start", partial: message });
    const done = { ...message, content: [{ type: "text" as const, text }] };
    stream.push({
      type: "text_start",
      contentIndex: 0,
      partial: { ...message, content: [{ type: "text", text: "" }] },
    });
    stream.push({ type: "text_delta", contentIndex: 0, delta: text, partial: done });
    stream.push({ type: "text_end", contentIndex: 0, content: text, partial: done });
    stream.push({ type: "done", reason: "stop", message: done });
  });
  return stream;
}

const model = {
  id: "echo-1",
  name: "Echo",
  reasoning: false,
  input: ["text" as const],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 8000,
  maxTokens: 1000,
};

describe("registerProvider with streamSimple and authHeader", () => {
  it("answers a prompt through the extension's stream function, with the key as a bearer header", async () => {
    const cwd = join(dir, "proj");
    mkdirSync(cwd);
    const factory = (api: ExtensionAPI) =>
      api.registerProvider("echo-co", {
        name: "Echo Co",
        api: "echo-co-chat",
        baseUrl: "http://127.0.0.1:9/unused",
        apiKey: "sekrit-key",
        authHeader: true,
        streamSimple: echoStream,
        models: [model],
      });
    const services = await createAgentSessionServices({
      cwd,
      agentDir: join(dir, "agent"),
      resourceLoaderOptions: { extensionFactories: [factory], noExtensions: false },
    });
    // Providers registered while loading join the registry when the extensions bind to the session.
    const faux = registerFauxProvider();
    const { session } = await createAgentSessionFromServices({
      services,
      sessionManager: SessionManager.inMemory(cwd),
      model: faux.getModel(),
    });
    faux.unregister();
    const found = services.modelRegistry.find("echo-co", "echo-1");
    expect(found).toMatchObject({ api: "echo-co-chat", provider: "echo-co" });
    await session.setModel(found!);
    await session.prompt("hello there");
    const reply = session.messages.at(-1) as AssistantMessage;
    expect(reply.role).toBe("assistant");
    expect(reply.content).toEqual([{ type: "text", text: "echo hello there key=sekrit-key auth=Bearer sekrit-key" }]);
    expect(await services.modelRegistry.getApiKeyAndHeaders(found!)).toEqual({
      ok: true,
      apiKey: "sekrit-key",
      headers: { Authorization: "Bearer sekrit-key" },
    });
    session.dispose();

    services.modelRegistry.unregisterProvider("echo-co");
    expect(getApiProvider("echo-co-chat")).toBeUndefined();
    expect(services.modelRegistry.find("echo-co", "echo-1")).toBeUndefined();
  });

  it("serves a built-in API with the stream function while registered, and the built-in again after", async () => {
    const registry = ModelRegistry.inMemory();
    const builtin = getApiProvider("openai-completions");
    registry.registerProvider("override", {
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:9",
      apiKey: "k",
      streamSimple: echoStream,
      models: [model],
    });
    const m = registry.find("override", "echo-1")!;
    const context: Context = { messages: [{ role: "user", content: "hi", timestamp: 1 }] };
    const answer = await getApiProvider("openai-completions")!.streamSimple(m, context, { apiKey: "k" }).result();
    expect(answer.content).toEqual([{ type: "text", text: "echo hi key=k auth=undefined" }]);
    registry.unregisterProvider("override");
    const restored = getApiProvider("openai-completions");
    expect(restored).toBeDefined();
    expect(restored).not.toBe(builtin); // registered again (lazily), not the extension's
    // The restored built-in speaks HTTP: a closed port is a connection error, not the echo.
    const failed = await restored!.streamSimple(m, context, { apiKey: "k" }).result();
    expect(failed.stopReason).toBe("error");
  });

  it("reports a provider an extension registered while loading with a bad config, and the session starts", async () => {
    const cwd = join(dir, "proj");
    mkdirSync(cwd);
    const services = await createAgentSessionServices({
      cwd,
      agentDir: join(dir, "agent"),
      resourceLoaderOptions: {
        extensionFactories: [(api: ExtensionAPI) => api.registerProvider("no-api", { streamSimple: echoStream })],
      },
    });
    const faux = registerFauxProvider();
    try {
      const { session } = await createAgentSessionFromServices({
        services,
        sessionManager: SessionManager.inMemory(cwd),
        model: faux.getModel(),
      });
      const errors: ExtensionError[] = [];
      session.extensionRunner.onError((e) => errors.push(e));
      expect(errors.map((e) => [e.event, e.error])).toEqual([
        ["register_provider", 'Provider no-api: "api" is required when registering streamSimple.'],
      ]);
      session.dispose();
    } finally {
      faux.unregister();
    }
  });

  it("refuses streamSimple without an api, and authHeader without a key", async () => {
    const registry = ModelRegistry.inMemory();
    expect(() => registry.registerProvider("bad", { streamSimple: echoStream })).toThrow(
      'Provider bad: "api" is required when registering streamSimple.',
    );
    expect(getApiProvider("openai-completions")).toBeDefined();
    registry.registerProvider("keyless", {
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:9",
      authHeader: true,
      models: [model],
    });
    expect(await registry.getApiKeyAndHeaders(registry.find("keyless", "echo-1")!)).toEqual({
      ok: false,
      error: 'No API key found for "keyless"',
    });
  });
});
