import type { AssistantMessage, AssistantMessageEvent, Message } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import {
  Agent,
  type AgentEvent,
  type AgentLoopConfig,
  type AgentMessage,
  agentLoop,
  agentLoopContinue,
  defaultConvertToLlm,
  failedAssistantMessage,
} from "../src/index.js";
import { model, scripted, textOf, user } from "./helpers/scripted.js";

declare module "@tiller/agent" {
  interface CustomAgentMessages {
    note: { role: "note"; text: string; timestamp: number };
  }
}

const config = (over: Partial<AgentLoopConfig> = {}): AgentLoopConfig => ({
  model,
  convertToLlm: defaultConvertToLlm,
  ...over,
});

describe("agentLoop (the loop alone)", () => {
  it("streams events and resolves to the new messages; the caller's context is not mutated", async () => {
    const { streamFn } = scripted([{ blocks: [{ text: "hi there" }] }]);
    const context = { systemPrompt: "sys", messages: [user("earlier")] };
    const stream = agentLoop([user("hello")], context, config(), undefined, streamFn);
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    const messages = await stream.result();
    expect(types[0]).toBe("agent_start");
    expect(types.at(-1)).toBe("agent_end");
    expect(messages.map(textOf)).toEqual(["hello", "hi there"]);
    expect(context.messages).toHaveLength(1);
  });

  it("agentLoopContinue continues from the context without user events and throws at once when it cannot", async () => {
    expect(() => agentLoopContinue({ systemPrompt: "", messages: [] }, config())).toThrow(/no messages/);
    const { streamFn, calls } = scripted([{ blocks: [{ text: "answer" }] }]);
    const stream = agentLoopContinue({ systemPrompt: "", messages: [user("q")] }, config(), undefined, streamFn);
    const events: AgentEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(
      events.filter((e) => e.type === "message_start").map((e) => e.type === "message_start" && e.message.role),
    ).toEqual(["assistant"]);
    expect(calls[0]!.context.messages.map(textOf)).toEqual(["q"]);
    const last = (await stream.result()).at(-1)!;
    expect(() => agentLoopContinue({ systemPrompt: "", messages: [last] }, config())).toThrow(/assistant/);
  });

  it("custom message types (declaration merging) stay in the transcript and are dropped or converted for the LLM", async () => {
    const { streamFn, calls } = scripted([{ blocks: [{ text: "a" }] }, { blocks: [{ text: "b" }] }]);
    const note: AgentMessage = { role: "note", text: "UI only", timestamp: 0 };
    const agent = new Agent({ initialState: { model, messages: [note] }, streamFn });
    await agent.prompt("first");
    expect(calls[0]!.context.messages.map((m) => m.role)).toEqual(["user"]);
    agent.convertToLlm = (messages) =>
      messages.flatMap((m): Message[] =>
        m.role === "note" ? [{ role: "user", content: `[note] ${m.text}`, timestamp: 0 }] : defaultConvertToLlm([m]),
      );
    await agent.prompt("second");
    expect(textOf(calls[1]!.context.messages[0])).toBe("[note] UI only");
    expect(agent.state.messages[0]).toBe(note);
  });

  it("transformContext runs before convertToLlm on every call, gets the signal, and does not replace the transcript", async () => {
    const { streamFn, calls } = scripted([{ blocks: [{ text: "a" }] }, { blocks: [{ text: "b" }] }]);
    const order: string[] = [];
    const agent = new Agent({
      initialState: { model, messages: [user("old 1"), user("old 2")] },
      streamFn,
      transformContext: async (messages, signal) => {
        order.push(`transform:${signal instanceof AbortSignal}`);
        return messages.slice(-1);
      },
      convertToLlm: (messages) => {
        order.push("convert");
        return defaultConvertToLlm(messages);
      },
    });
    await agent.prompt("new");
    await agent.prompt("newer");
    expect(order).toEqual(["transform:true", "convert", "transform:true", "convert"]);
    expect(calls.map((c) => c.context.messages.map(textOf))).toEqual([["new"], ["newer"]]);
    expect(agent.state.messages.map(textOf)).toEqual(["old 1", "old 2", "new", "a", "newer", "b"]);
  });

  it("a throwing transformContext ends the turn with an error message instead of an exception", async () => {
    const { streamFn } = scripted([]);
    const agent = new Agent({
      initialState: { model },
      streamFn,
      transformContext: async () => {
        throw new Error("pruning failed");
      },
    });
    await agent.prompt("go");
    expect(agent.state.messages.at(-1)).toMatchObject({ stopReason: "error", errorMessage: "pruning failed" });
  });

  it("shouldStopAfterTurn ends the run after the turn, leaving queued messages queued", async () => {
    const { streamFn, calls } = scripted([{ blocks: [{ text: "a" }] }]);
    const queued = [user("later")];
    const stream = agentLoop(
      [user("go")],
      { systemPrompt: "", messages: [] },
      config({ shouldStopAfterTurn: () => true, getFollowUpMessages: () => queued.splice(0) }),
      undefined,
      streamFn,
    );
    for await (const _ of stream) {
    }
    expect(calls).toHaveLength(1);
    expect(queued).toHaveLength(1);
  });
});

/** A stream with the optional `drainQueued` capability: queued events are handed over in bursts. */
class BurstStream implements AsyncIterable<AssistantMessageEvent> {
  private queue: AssistantMessageEvent[] = [];
  private waiter: ((r: IteratorResult<AssistantMessageEvent>) => void) | undefined;
  private final: AssistantMessage | undefined;
  drains = 0;
  drained = 0;
  push(event: AssistantMessageEvent): void {
    if (event.type === "done") this.final = event.message;
    const w = this.waiter;
    this.waiter = undefined;
    if (w) w({ value: event, done: false });
    else this.queue.push(event);
  }
  drainQueued(): AssistantMessageEvent[] {
    const out = this.queue;
    this.queue = [];
    this.drains++;
    this.drained += out.length;
    return out;
  }
  [Symbol.asyncIterator](): AsyncIterator<AssistantMessageEvent> {
    return {
      next: () => {
        const value = this.queue.shift();
        if (value) return Promise.resolve({ value, done: false });
        return new Promise((resolve) => {
          this.waiter = resolve;
        });
      },
    };
  }
  async result(): Promise<AssistantMessage> {
    return this.final as AssistantMessage;
  }
}

describe("streams with drainQueued", () => {
  it("are read a burst at a time, with every event delivered once and in order", async () => {
    const stream = new BurstStream();
    const partial = {
      ...failedAssistantMessage({ model }, "error", ""),
      stopReason: "stop" as const,
      errorMessage: undefined,
    };
    const text = { type: "text" as const, text: "" };
    const streamFn = () => {
      void (async () => {
        stream.push({ type: "start", partial });
        partial.content.push(text);
        for (let burst = 0; burst < 10; burst++) {
          await new Promise((r) => setImmediate(r));
          for (let i = 0; i < 10; i++) {
            const delta = `${burst * 10 + i},`;
            text.text += delta;
            stream.push({ type: "text_delta", contentIndex: 0, delta, partial });
          }
        }
        stream.push({ type: "done", reason: "stop", message: { ...partial, content: [{ ...text }] } });
      })();
      return stream;
    };
    const agent = new Agent({ initialState: { model }, streamFn });
    const deltas: string[] = [];
    agent.subscribe("message_update", (e) => {
      if (e.assistantMessageEvent.type === "text_delta") deltas.push(e.assistantMessageEvent.delta);
    });
    await agent.prompt("go");
    expect(deltas).toEqual(Array.from({ length: 100 }, (_, i) => `${i},`));
    expect(stream.drained).toBeGreaterThan(50);
    expect(textOf(agent.state.messages.at(-1))).toBe(deltas.join(""));
  });
});
