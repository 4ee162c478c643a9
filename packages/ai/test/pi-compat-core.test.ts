// Same inputs through Tiller and the pi-ai reference: results must agree where pi-ai defines the behaviour.
import * as pi from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
  type AssistantMessage,
  calculateCost,
  clampThinkingLevel,
  createEmptyUsage,
  getModels,
  getProviders,
  getSupportedThinkingLevels,
  isContextOverflow,
  type Model,
  type ModelThinkingLevel,
  THINKING_LEVELS,
} from "../src/index.js";

const allModels = (): Model[] => getProviders().flatMap((p) => getModels(p));

describe("pi-ai compatibility of the model helpers", () => {
  it("supported levels and clamping agree with pi-ai for every catalog model and level", () => {
    const extraMaps: Model["thinkingLevelMap"][] = [
      undefined,
      { off: null },
      { xhigh: "max", minimal: null },
      { off: null, minimal: null, low: "LOW", medium: null, high: "HIGH" },
    ];
    const models = [
      ...allModels(),
      ...extraMaps.map((map) => ({ ...allModels()[0]!, reasoning: true, thinkingLevelMap: map })),
    ];
    for (const model of models) {
      const piModel = model as unknown as pi.Model<pi.Api>;
      expect(getSupportedThinkingLevels(model)).toEqual(pi.getSupportedThinkingLevels(piModel));
      for (const level of THINKING_LEVELS) {
        expect(clampThinkingLevel(model, level), `${model.id} ${level}`).toBe(
          pi.clampThinkingLevel(piModel, level as ModelThinkingLevel),
        );
      }
    }
  });

  it("calculateCost agrees with pi-ai", () => {
    for (const model of allModels()) {
      const ours = { ...createEmptyUsage(), input: 12_345, output: 678, cacheRead: 9_000, cacheWrite: 100 };
      const theirs = structuredClone(ours);
      calculateCost(model, ours);
      pi.calculateCost(model as unknown as pi.Model<pi.Api>, theirs as pi.Usage);
      expect(ours.cost.total).toBeCloseTo(theirs.cost.total, 12);
    }
  });

  it("isContextOverflow agrees with pi-ai on the vendor phrasings both know", () => {
    const texts = [
      "prompt is too long: 213462 tokens > 200000 maximum",
      "Your input exceeds the context window of this model",
      "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)",
      "This model's maximum prompt length is 131072 but the request contains 537812 tokens",
      "Please reduce the length of the messages or completion",
      "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens",
      "the request exceeds the available context size, try increasing it",
      "prompt too long; exceeded max context length by 100 tokens",
      "Rate limit reached for requests",
      "Internal server error",
    ];
    // Deliberate difference: pi-ai counts Bedrock's "ThrottlingException: Too many tokens, please wait" as
    // overflow (its exclusion only matches a reformatted prefix); Tiller does not (see overflow.test.ts).
    for (const errorMessage of texts) {
      const message: AssistantMessage = {
        role: "assistant",
        content: [],
        api: "openai-completions",
        provider: "x",
        model: "m",
        usage: createEmptyUsage(),
        stopReason: "error",
        errorMessage,
        timestamp: 0,
      };
      expect(isContextOverflow(message), errorMessage).toBe(pi.isContextOverflow(message as pi.AssistantMessage));
    }
  });
});
