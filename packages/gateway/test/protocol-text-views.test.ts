/**
 * Which text view a client gets from what it announces at connect, and what each view receives of one run's
 * events: the copies of the text it reads and no other, every variant valid under the protocol schema.
 */
import { describe, expect, it } from "vitest";
import { AgentEventSchema, ChatEventSchema, compileSchema, type TextView } from "../src/protocol/schema/index.js";
import { type BusEvent, EventBus } from "../src/run/event-bus.js";
import { textViewOf } from "../src/server/text-view.js";

const VIEWS: TextView[] = ["deltas", "answer", "chat", "snapshots"];
const agentSchema = compileSchema(AgentEventSchema);
const chatSchema = compileSchema(ChatEventSchema);

/** The events one bus emits, as a run emits them: a lite burst, the coalesced event, a chat delta, a final. */
function runEvents(answered: boolean): BusEvent[] {
  const bus = new EventBus();
  const seen: BusEvent[] = [];
  bus.subscribe((e) => seen.push(e));
  bus.emitAgent("r1", "s1", "assistant", { delta: "hello" }, true, "lite");
  const seq = bus.emitAgent("r1", "s1", "assistant", { text: "hello", delta: "hello" }, true, "full");
  const message = { role: "assistant" as const, content: [{ type: "text" as const, text: "hello" }], timestamp: 1 };
  bus.emitChat({ runId: "r1", sessionKey: "s1", seq, state: "delta", message, deltaText: "hello" }, true);
  const end = bus.emitAgent("r1", "s1", "lifecycle", { phase: "end", endedAt: 2 });
  bus.emitChat({ runId: "r1", sessionKey: "s1", seq: end, state: "final", message }, false, answered);
  return seen;
}

/** What a connection of `view` receives of the run, parsed, each checked against its event's schema. */
function received(view: TextView, answered: boolean, missedEvents = false): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const ev of runEvents(answered)) {
    const json = ev.jsonFor(view, missedEvents);
    if (json === undefined) continue;
    const p = JSON.parse(json) as Record<string, unknown>;
    expect((ev.event === "agent" ? agentSchema : chatSchema).issue(p)).toBeUndefined();
    out.push(p);
  }
  return out;
}

const kinds = (ps: Record<string, unknown>[]) => ps.map((p) => (p.stream ? `agent:${p.stream}` : `chat:${p.state}`));
const assistantData = (ps: Record<string, unknown>[]) =>
  ps.filter((p) => p.stream === "assistant").map((p) => p.data as Record<string, unknown>);
const chatFinal = (ps: Record<string, unknown>[]) => ps.find((p) => p.state === "final") as { message?: unknown };

describe("text views", () => {
  it("are chosen from the capability, the protocol and the client id", () => {
    const caps = (...c: string[]) => new Set(c);
    expect(textViewOf({ protocol: 4, clientId: "tiller-web", caps: caps("tiller.delta-only") })).toBe("deltas");
    expect(textViewOf({ protocol: 3, clientId: "cli", caps: caps("tiller.delta-only") })).toBe("deltas");
    expect(textViewOf({ protocol: 3, clientId: "cli", caps: caps() })).toBe("snapshots");
    expect(textViewOf({ protocol: 4, clientId: "cli", caps: caps("session-scoped-events") })).toBe("answer");
    expect(textViewOf({ protocol: 4, clientId: "openclaw-tui", caps: caps("tool-events") })).toBe("chat");
    expect(textViewOf({ protocol: 4, clientId: "openclaw-control-ui", caps: caps() })).toBe("chat");
    expect(textViewOf({ protocol: 4, clientId: "tiller-cli", caps: caps() })).toBe("chat");
  });

  it("each view gets its stream of the text, seq gap-free, and only the copies it reads", () => {
    const deltas = received("deltas", true);
    expect(kinds(deltas)).toEqual(["agent:assistant", "agent:lifecycle", "chat:final"]);
    expect(assistantData(deltas)).toEqual([{ delta: "hello" }]);
    expect(deltas.filter((p) => p.stream).map((p) => p.seq)).toEqual([1, 2]);

    const chat = received("chat", true);
    expect(kinds(chat)).toEqual(["agent:assistant", "chat:delta", "agent:lifecycle", "chat:final"]);
    expect(assistantData(chat)).toEqual([{ delta: "hello" }]);
    expect(chat[1]).toMatchObject({ deltaText: "hello", message: { content: [{ text: "hello" }] } });
    expect(chatFinal(chat).message).toBeDefined();

    const snapshots = received("snapshots", true);
    expect(kinds(snapshots)).toEqual(kinds(chat));
    expect(assistantData(snapshots)).toEqual([{ text: "hello", delta: "hello" }]);

    const answer = received("answer", true);
    expect(kinds(answer)).toEqual(["agent:assistant", "agent:lifecycle", "chat:final"]);
    expect(assistantData(answer)).toEqual([{ delta: "hello" }]);
    expect(chatFinal(answer).message).toBeUndefined();
    for (const v of VIEWS.filter((x) => x !== "deltas"))
      expect(
        received(v, true)
          .filter((p) => p.stream)
          .map((p) => p.seq),
      ).toEqual([1, 2]);
  });

  it("the answer view's final keeps the text when the answer has none, or the connection missed events", () => {
    expect(chatFinal(received("answer", false)).message).toBeDefined();
    expect(chatFinal(received("answer", true, true)).message).toBeDefined();
  });
});
