import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthStorage, ModelRegistry } from "../src/index.js";

let dir: string;
let file: string;
const saved = { ...process.env };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-models-"));
  file = join(dir, "models.json");
  for (const k of Object.keys(process.env)) if (k.endsWith("_API_KEY")) delete process.env[k];
});
afterEach(() => {
  process.env = { ...saved };
  rmSync(dir, { recursive: true, force: true });
});

describe("ModelRegistry and models.json", () => {
  it("adds a provider with models (pi's format, with comments and trailing commas)", () => {
    writeFileSync(
      file,
      `{
  // a local server
  "providers": {
    "local": {
      "baseUrl": "http://127.0.0.1:8080/v1",
      "api": "openai-completions",
      "apiKey": "LOCAL_KEY",
      "models": [
        { "id": "qwen", "name": "Qwen", "contextWindow": 32768, "maxTokens": 4096, "cost": { "input": 0.1 }, },
      ],
    },
  },
}`,
    );
    const reg = ModelRegistry.create(AuthStorage.inMemory(), file);
    expect(reg.errors).toEqual([]);
    const m = reg.find("local", "qwen");
    expect(m).toMatchObject({
      id: "qwen",
      name: "Qwen",
      api: "openai-completions",
      provider: "local",
      baseUrl: "http://127.0.0.1:8080/v1",
      contextWindow: 32768,
      maxTokens: 4096,
      cost: { input: 0.1, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    expect(reg.hasConfiguredAuth(m as never)).toBe(false);
    process.env.LOCAL_KEY = "sk-local";
    expect(reg.hasConfiguredAuth(m as never)).toBe(true);
    expect(reg.getApiKey(m as never)).toBe("sk-local");
    expect(reg.getAvailable().map((x) => x.provider)).toContain("local");
  });

  it("overrides built-in providers and models", () => {
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          openai: {
            baseUrl: "http://proxy.local/v1",
            modelOverrides: { "gpt-4.1": { contextWindow: 50000 } },
            models: [{ id: "gpt-private", name: "Private" }],
          },
        },
      }),
    );
    const reg = ModelRegistry.create(AuthStorage.inMemory(), file);
    expect(reg.errors).toEqual([]);
    expect(reg.find("openai", "gpt-4.1")).toMatchObject({
      baseUrl: "http://proxy.local/v1",
      contextWindow: 50000,
      api: "openai-responses",
    });
    expect(reg.find("openai", "gpt-5")?.baseUrl).toBe("http://proxy.local/v1");
    expect(reg.find("openai", "gpt-private")).toMatchObject({
      api: "openai-responses",
      baseUrl: "http://proxy.local/v1",
    });
  });

  it("reports every problem of a bad file with its path, and keeps the built-in catalog", () => {
    writeFileSync(
      file,
      JSON.stringify({
        providers: {
          broken: { models: [{ name: "no id" }] },
          openai: { models: [{ id: "x", contextWindow: -5, input: ["audio"] }] },
        },
      }),
    );
    const reg = ModelRegistry.create(AuthStorage.inMemory(), file);
    const text = reg.errors.join("\n");
    expect(text).toContain(`${file}: providers.broken.baseUrl is required for a new provider`);
    expect(text).toContain("providers.broken.api is required for a new provider");
    expect(text).toContain("providers.broken.models[0].id must be a non-empty string");
    expect(text).toContain("providers.openai.models[0].contextWindow must be a positive number");
    expect(text).toContain('providers.openai.models[0].input must be an array of "text" and "image"');
    expect(reg.find("openai", "gpt-4.1")).toBeDefined();
    expect(reg.find("openai", "x")).toBeUndefined();
  });

  it("reports invalid JSON with the file name", () => {
    writeFileSync(file, "{ providers: ");
    const reg = ModelRegistry.create(AuthStorage.inMemory(), file);
    expect(reg.errors[0]).toMatch(new RegExp(`^${file}: invalid JSON`));
  });

  it("reports which models have credentials; the offline model always does", () => {
    const reg = ModelRegistry.create(AuthStorage.inMemory(), file);
    const available = new Set(reg.getAvailable().map((m) => m.provider));
    expect(available).toEqual(new Set(["offline"]));
    process.env.ANTHROPIC_API_KEY = "k";
    expect(new Set(reg.getAvailable().map((m) => m.provider))).toEqual(new Set(["offline", "anthropic"]));
  });

  it("registerProvider adds a provider at run time", () => {
    const reg = ModelRegistry.inMemory();
    reg.registerProvider("mine", {
      baseUrl: "http://x",
      api: "openai-completions",
      apiKey: "literal-key",
      models: [{ id: "m1" }],
    });
    const m = reg.find("mine", "m1");
    expect(m).toBeDefined();
    expect(reg.getApiKey(m as never)).toBe("literal-key");
    reg.unregisterProvider("mine");
    expect(reg.find("mine", "m1")).toBeUndefined();
  });
});
