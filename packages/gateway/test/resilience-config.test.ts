/**
 * Configuring failover: `agents.defaults.model` as a string or {primary, fallbacks}, errors that name the
 * key, unknown fallback models refused at start-up, and fallback models of another provider called with
 * their own key.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Api,
  type AssistantMessageEventStreamLike,
  type Context,
  createAssistantMessageEventStream,
  type Model,
  type SimpleStreamOptions,
} from "@tiller/ai";
import { afterEach, beforeEach, expect, it } from "vitest";
import { validateConfig } from "../src/config/load-config.js";
import { ModelRegistry } from "../src/config/models-config.js";
import { createFailoverExtension } from "../src/resilience/failover-extension.js";
import type { RunContext } from "../src/run/run-types.js";

let home = "";
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-res-config-"));
  writeFileSync(
    join(home, "models.json"),
    JSON.stringify({
      providers: {
        main: {
          baseUrl: "http://127.0.0.1:1/v1",
          api: "openai-completions",
          apiKey: "main-key",
          models: [{ id: "m1" }],
        },
        spare: {
          baseUrl: "http://127.0.0.1:1/v1",
          api: "openai-completions",
          apiKey: "spare-key",
          models: [{ id: "s1" }],
        },
      },
    }),
  );
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

it("accepts the model as a plain string (no fallbacks) or as {primary, fallbacks}", () => {
  const plain = validateConfig({ agents: { defaults: { model: "main/m1" } } }, home);
  expect(plain.agents.defaults).toMatchObject({ model: "main/m1", modelFallbacks: [] });
  const chain = validateConfig(
    { agents: { defaults: { model: { primary: "main/m1", fallbacks: ["spare/s1", " main/m1 "] } } } },
    home,
  );
  expect(chain.agents.defaults).toMatchObject({ model: "main/m1", modelFallbacks: ["spare/s1", "main/m1"] });
  expect(validateConfig({}, home).agents.defaults.modelFallbacks).toEqual([]);
});

it("rejects malformed model settings with an error naming the key", () => {
  const bad = (model: unknown) => () => validateConfig({ agents: { defaults: { model } } }, home);
  expect(bad(42)).toThrow(/agents\.defaults\.model: expected/);
  expect(bad({ primary: "main/m1", fallbacks: "spare/s1" })).toThrow(
    /agents\.defaults\.model\.fallbacks: expected an array/,
  );
  expect(bad({ primary: "main/m1", fallbacks: ["spare/s1", 7] })).toThrow(/agents\.defaults\.model\.fallbacks\[1\]/);
  expect(bad({ primary: 3 })).toThrow(/agents\.defaults\.model\.primary/);
  expect(bad({ primary: "main/m1", fallback: [] })).toThrow(/agents\.defaults\.model\.fallback: unknown key/);
});

it("refuses an unknown fallback model at start-up, naming its index", () => {
  const config = validateConfig(
    { agents: { defaults: { model: { primary: "main/m1", fallbacks: ["nope/x"] } } } },
    home,
  );
  const models = ModelRegistry.load(home, config.agents.defaults.model);
  expect(() => createFailoverExtension({ config, models })).toThrow(/fallbacks\[0\]: unknown model "nope\/x"/);
});

it("refuses a malformed auth-profiles.json, naming the file", () => {
  writeFileSync(join(home, "auth-profiles.json"), "{ not json");
  const config = validateConfig({ agents: { defaults: { model: "main/m1" } } }, home);
  const models = ModelRegistry.load(home, config.agents.defaults.model);
  expect(() => createFailoverExtension({ config, models })).toThrow(/auth-profiles\.json: not valid JSON/);
});

it("calls a fallback of another provider with that provider's key and reports it as the answering model", async () => {
  const config = validateConfig(
    { agents: { defaults: { model: { primary: "main/m1", fallbacks: ["spare/s1"] } } } },
    home,
  );
  const models = ModelRegistry.load(home, config.agents.defaults.model);
  const ext = createFailoverExtension({ config, models });
  const seen: string[] = [];
  const raw = (m: Model<Api>, _c: Context, o?: SimpleStreamOptions): AssistantMessageEventStreamLike => {
    seen.push(`${m.provider}@${o?.apiKey}`);
    const s = createAssistantMessageEventStream();
    const msg = {
      role: "assistant" as const,
      content: [],
      api: m.api,
      provider: m.provider,
      model: m.id,
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      timestamp: 0,
    };
    queueMicrotask(() => {
      if (m.provider === "main") {
        s.push({
          type: "error",
          reason: "error",
          error: { ...msg, stopReason: "error", errorMessage: "529 Overloaded", errorStatus: 529 },
        });
      } else {
        s.push({ type: "done", reason: "stop", message: { ...msg, stopReason: "stop" } });
      }
    });
    return s;
  };
  const primary = models.resolve("main/m1");
  const ctx = { runId: "r", sessionKey: "agent:main:x", model: primary, state: {} } as unknown as RunContext;
  const call = ext.wrapModelCall?.(raw, ctx);
  const stream = call?.(primary?.model as Model<Api>, { messages: [] }, { apiKey: primary?.apiKey });
  for await (const _ of stream ?? []) {
    // drain
  }
  expect(seen).toEqual(["main@main-key", "spare@spare-key"]);
  const outcome = { result: { meta: { agentMeta: { provider: "main", model: "m1" } } } } as never;
  await ext.onRunEnd?.(ctx, outcome);
  expect((outcome as { result: { meta: { agentMeta: unknown } } }).result.meta.agentMeta).toEqual({
    provider: "spare",
    model: "s1",
  });
});
