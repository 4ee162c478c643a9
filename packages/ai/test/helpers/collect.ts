/** Collects a provider stream and checks the event protocol every provider must follow. */
import { expect } from "vitest";
import type {
  Api,
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStreamLike,
  Model,
} from "../../src/types.js";

export interface Collected {
  events: AssistantMessageEvent[];
  types: string[];
  result: AssistantMessage;
  terminal: AssistantMessageEvent;
}

export async function collect(
  stream: AssistantMessageEventStreamLike,
  onEvent?: (event: AssistantMessageEvent) => void,
): Promise<Collected> {
  const events: AssistantMessageEvent[] = [];
  for await (const e of stream) {
    events.push(e);
    onEvent?.(e);
  }
  const result = await stream.result();
  const terminal = events[events.length - 1] as AssistantMessageEvent;
  assertWellFormed(events);
  return { events, types: events.map((e) => e.type), result, terminal };
}

/**
 * Exactly one terminal event, last; `start` first when present; each block opens, gets deltas and closes in
 * order, with matching content indexes; the final message equals the last partial's content.
 */
export function assertWellFormed(events: AssistantMessageEvent[]): void {
  expect(events.length).toBeGreaterThan(0);
  const terminals = events.filter((e) => e.type === "done" || e.type === "error");
  expect(terminals).toHaveLength(1);
  expect(events[events.length - 1]).toBe(terminals[0]);
  const starts = events.filter((e) => e.type === "start");
  expect(starts.length).toBeLessThanOrEqual(1);
  if (starts.length === 1) expect(events[0]?.type).toBe("start");
  const state = new Map<number, string>();
  for (const e of events) {
    if (!("contentIndex" in e)) continue;
    const [kind, phase] = e.type.split("_") as [string, string];
    const prev = state.get(e.contentIndex);
    if (phase === "start") {
      expect(prev).toBeUndefined();
      state.set(e.contentIndex, `${kind}:open`);
    } else {
      expect(prev).toBe(`${kind}:open`);
      if (phase === "end") state.set(e.contentIndex, `${kind}:closed`);
    }
  }
  const last = events[events.length - 1] as AssistantMessageEvent;
  if (last.type === "done") {
    for (const [index, s] of state) expect(s, `block ${index} closed before done`).toMatch(/:closed$/);
  }
}

export function testModel<TApi extends Api>(api: TApi, overrides: Partial<Model<TApi>> = {}): Model<TApi> {
  return {
    id: "test-model",
    name: "Test model",
    api,
    provider: "test",
    baseUrl: "http://127.0.0.1:1",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200_000,
    maxTokens: 64_000,
    ...overrides,
  } as Model<TApi>;
}

export function textOfMessage(m: AssistantMessage): string {
  return m.content
    .filter((b) => b.type === "text")
    .map((b) => (b as { text: string }).text)
    .join("");
}
