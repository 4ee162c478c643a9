import { describe, expect, it } from "vitest";
import {
  calculateCost,
  clampThinkingLevel,
  getModel,
  getModels,
  getProviders,
  getSupportedThinkingLevels,
  type Model,
  modelsAreEqual,
  type Usage,
} from "../src/index.js";

function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage {
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

function reasoningModel(map?: Model["thinkingLevelMap"], reasoning = true): Model {
  return {
    id: "m",
    name: "m",
    api: "openai-completions",
    provider: "test",
    baseUrl: "http://127.0.0.1:1/v1",
    reasoning,
    thinkingLevelMap: map,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 1000,
    maxTokens: 100,
  };
}

describe("model catalog", () => {
  it("ships the built-in providers and the offline model", () => {
    const providers = getProviders();
    for (const p of ["openai", "anthropic", "google", "openrouter", "groq", "deepseek", "xai", "mistral", "offline"]) {
      expect(providers).toContain(p);
      expect(getModels(p).length).toBeGreaterThan(0);
    }
    const offline = getModel("offline", "tiller-offline");
    expect(offline.api).toBe("offline");
    expect(offline.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  });

  it("gives each provider the wire api and base url it speaks", () => {
    expect(getModel("anthropic", "claude-sonnet-4-6").api).toBe("anthropic-messages");
    expect(getModel("google", "gemini-2.5-flash").api).toBe("google-generative-ai");
    expect(getModel("openai", "gpt-5.5").api).toBe("openai-responses");
    expect(getModels("mistral").every((m) => m.api === "mistral-conversations")).toBe(true);
    expect(getModel("azure-openai-responses", "gpt-5.4").api).toBe("azure-openai-responses");
    expect(getModel("google-vertex", "gemini-2.5-pro").api).toBe("google-vertex");
    expect(getModel("openai-codex", "gpt-5.3-codex").baseUrl).toBe("https://chatgpt.com/backend-api");
    for (const p of ["openrouter", "groq", "deepseek", "xai"]) {
      for (const m of getModels(p)) {
        expect(m.api).toBe("openai-completions");
        expect(m.baseUrl).toMatch(/^https:\/\//);
      }
    }
  });

  it("has sane numbers for every model", () => {
    for (const p of getProviders()) {
      for (const m of getModels(p)) {
        expect(m.provider).toBe(p);
        expect(m.contextWindow).toBeGreaterThan(1000);
        expect(m.maxTokens).toBeGreaterThan(0);
        expect(m.input).toContain("text");
        if (p !== "offline") expect(m.cost.input + m.cost.output).toBeGreaterThan(0);
      }
    }
  });

  it("returns undefined for an unknown provider or model id instead of throwing", () => {
    expect(getModel("nope", "x")).toBeUndefined();
    expect(getModel("openai", "no-such-model")).toBeUndefined();
    expect(getModels("nope")).toEqual([]);
  });

  it("compares models by provider and id", () => {
    const a = getModel("openai", "gpt-5.5");
    expect(modelsAreEqual(a, { ...a })).toBe(true);
    expect(modelsAreEqual(a, { ...a, provider: "openrouter" })).toBe(false);
    expect(modelsAreEqual(a, undefined)).toBe(false);
  });
});

describe("calculateCost", () => {
  it("fills usage.cost in dollars from per-million prices and returns it", () => {
    const model = getModel("anthropic", "claude-sonnet-4-6"); // $3 in, $15 out, $0.3 read, $3.75 write
    const u = usage(1_000_000, 200_000, 500_000, 100_000);
    const cost = calculateCost(model, u);
    expect(cost).toBe(u.cost);
    expect(cost.input).toBeCloseTo(3);
    expect(cost.output).toBeCloseTo(3);
    expect(cost.cacheRead).toBeCloseTo(0.15);
    expect(cost.cacheWrite).toBeCloseTo(0.375);
    expect(cost.total).toBeCloseTo(6.525);
  });

  it("is free for the offline model", () => {
    const u = usage(123_456, 789);
    expect(calculateCost(getModel("offline", "tiller-offline"), u).total).toBe(0);
  });
});

describe("thinking levels", () => {
  it("a non-reasoning model only supports off, and every request clamps to off", () => {
    const m = reasoningModel(undefined, false);
    expect(getSupportedThinkingLevels(m)).toEqual(["off"]);
    expect(clampThinkingLevel(m, "high")).toBe("off");
    expect(clampThinkingLevel(m, "xhigh")).toBe("off");
  });

  it("a reasoning model without a map supports off..high but not xhigh", () => {
    const m = reasoningModel();
    expect(getSupportedThinkingLevels(m)).toEqual(["off", "minimal", "low", "medium", "high"]);
    expect(clampThinkingLevel(m, "xhigh")).toBe("high");
    expect(clampThinkingLevel(m, "medium")).toBe("medium");
  });

  it("prefers the next stronger level, then falls back to weaker ones", () => {
    // Gemini 3.1 Pro style: only low and high exist.
    const m = reasoningModel({ off: null, minimal: null, low: "LOW", medium: null, high: "HIGH" });
    expect(getSupportedThinkingLevels(m)).toEqual(["low", "high"]);
    expect(clampThinkingLevel(m, "off")).toBe("low");
    expect(clampThinkingLevel(m, "minimal")).toBe("low");
    expect(clampThinkingLevel(m, "medium")).toBe("high");
    expect(clampThinkingLevel(m, "xhigh")).toBe("high");
  });

  it("off on a model that cannot disable reasoning becomes its weakest level", () => {
    const m = getModel("openai", "gpt-5.5");
    expect(getSupportedThinkingLevels(m)).toEqual(["minimal", "low", "medium", "high", "xhigh"]);
    expect(clampThinkingLevel(m, "off")).toBe("minimal");
    expect(clampThinkingLevel(m, "xhigh")).toBe("xhigh");
  });

  it("deepseek maps only high and xhigh, so low rises to high", () => {
    const m = getModel("deepseek", "deepseek-v4-flash");
    expect(clampThinkingLevel(m, "low")).toBe("high");
    expect(clampThinkingLevel(m, "off")).toBe("off");
  });
});
