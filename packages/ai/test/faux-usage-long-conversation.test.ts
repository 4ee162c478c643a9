import { afterEach, describe, expect, it } from "vitest";
import {
  type Context,
  complete,
  type FauxProviderRegistration,
  fauxAssistantMessage,
  fauxToolCall,
  type Message,
  registerFauxProvider,
  Type,
} from "../src/index.js";
import { ContextMeter } from "../src/providers/context-meter.js";
import { serializeContext } from "../src/providers/scripted-stream.js";

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** Small deterministic PRNG, so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a * 1103515245 + 12345) & 0x7fffffff;
    return a / 0x7fffffff;
  };
}

function randomMessage(next: () => number, i: number): Message {
  const pick = Math.floor(next() * 4);
  if (pick === 0) return { role: "user", content: next() < 0.2 ? "" : `question ${i}`, timestamp: i };
  if (pick === 1)
    return {
      role: "assistant",
      content: [
        { type: "thinking", thinking: `thought ${i}` },
        { type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `f${i}` } },
      ],
      api: "faux",
      provider: "faux",
      model: "m",
      usage: fauxAssistantMessage("").usage,
      stopReason: "toolUse",
      timestamp: i,
    };
  if (pick === 2)
    return {
      role: "toolResult",
      toolCallId: `c${i}`,
      toolName: "read",
      content: [{ type: "text", text: `contents ${i}` }],
      isError: false,
      timestamp: i,
    };
  return { role: "user", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], timestamp: i };
}

let reg: FauxProviderRegistration | undefined;
afterEach(() => reg?.unregister());

describe("faux usage on a growing conversation", () => {
  it("measures exactly what serializeContext renders, whether the array grows, is replaced or is copied", () => {
    const next = rng(7);
    for (const systemPrompt of [undefined, "", "You are terse."]) {
      const meter = new ContextMeter();
      const sessionMeter = new ContextMeter();
      const tools = [{ name: "read", description: "Reads", parameters: Type.Object({ path: Type.String() }) }];
      let context: Context = { systemPrompt, messages: [], tools };
      let previous: string | undefined;
      for (let step = 0; step < 60; step++) {
        const roll = next();
        if (roll < 0.6) {
          // The agent loop's way: the same array, appended to.
          const add = Math.floor(next() * 3);
          for (let k = 0; k < add; k++) context.messages.push(randomMessage(next, step * 10 + k));
        } else if (roll < 0.75) {
          // pi's way: a fresh copy per call, one message longer.
          context = { ...context, messages: [...context.messages, randomMessage(next, step)] };
        } else if (roll < 0.85) {
          // A shorter transcript (compaction), in the same array.
          context.messages.splice(0, Math.floor(context.messages.length / 2));
        } else if (roll < 0.92) {
          context = { ...context, systemPrompt: `prompt ${step}` };
        } else {
          context = { ...context, tools: next() < 0.5 ? undefined : tools };
        }
        const text = serializeContext(context);
        expect(meter.measure(context, false).length).toBe(text.length);
        const m = sessionMeter.measure(context, true);
        expect(m.length).toBe(text.length);
        expect(m.sharedPrefix).toBe(previous === undefined ? 0 : commonPrefix(previous, text));
        previous = text;
      }
    }
  });

  it("reports the same cached and uncached input tokens on turn 300 of an agent-style conversation", async () => {
    reg = registerFauxProvider();
    const model = reg.getModel();
    const turns = 300;
    reg.setResponses(
      Array.from({ length: turns }, (_, i) => fauxAssistantMessage([fauxToolCall("read", { path: `f${i}` })])),
    );
    const context: Context = { systemPrompt: "sys", messages: [{ role: "user", content: "go", timestamp: 0 }] };
    let last: { input: number; cacheRead: number } | undefined;
    let text = "";
    for (let i = 0; i < turns; i++) {
      const previous = text;
      text = serializeContext(context);
      const reply = await complete(model, context, { sessionId: "long" });
      last = reply.usage;
      if (i > 0) {
        const cached = Math.floor(commonPrefix(previous, text) / 4);
        expect(reply.usage.cacheRead).toBe(cached);
        expect(reply.usage.input).toBe(Math.max(0, Math.ceil(text.length / 4) - cached));
      }
      context.messages.push(reply, {
        role: "toolResult",
        toolCallId: `x${i}`,
        toolName: "read",
        content: [{ type: "text", text: `result ${i}` }],
        isError: false,
        timestamp: i,
      });
    }
    expect(last?.cacheRead).toBeGreaterThan(1000);
  });
});
