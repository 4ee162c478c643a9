/**
 * AgentSession.sendCustomMessage / sendUserMessage (pi's extension messaging): a custom message is stored as pi
 * stores it (a `custom_message` entry pi reads back), reaches the model as user text when a turn runs on it, and
 * is held for the next prompt or queued into a running loop per `deliverAs`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { type Context, fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSession,
  type AgentSessionEvent,
  createAgentSession,
  SessionManager,
  SettingsManager,
} from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
/** The context of every model request, as the provider received it. */
let requests: Context[];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-custom-msg-"));
  faux = registerFauxProvider();
  requests = [];
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

const reply = (text: string) => (ctx: Context) => {
  requests.push(structuredClone(ctx));
  return fauxAssistantMessage(text);
};
const texts = (ctx: Context | undefined) =>
  (ctx?.messages ?? []).map((m) =>
    typeof m.content === "string"
      ? m.content
      : m.content.map((b) => (b.type === "text" ? b.text : b.type === "image" ? "[image]" : `[${b.type}]`)).join(""),
  );

async function session(sm = SessionManager.create(dir, join(dir, "sessions"))): Promise<AgentSession> {
  const { session } = await createAgentSession({
    cwd: dir,
    model: faux.getModel(),
    sessionManager: sm,
    settingsManager: SettingsManager.inMemory(),
  });
  return session;
}

const note = { customType: "reminder", content: "remember the tests", display: true, details: { n: 1 } };

describe("AgentSession.sendCustomMessage", () => {
  it("idle, without a turn: joins the transcript as pi's custom_message entry, with message events", async () => {
    const ours = await session();
    const { session: pi } = await Pi.createAgentSession({
      cwd: dir,
      agentDir: join(dir, "pi-agent"),
      model: faux.getModel() as never,
      noTools: "all",
      sessionManager: Pi.SessionManager.inMemory(dir),
      settingsManager: Pi.SettingsManager.inMemory(),
    });
    const events: string[] = [];
    ours.subscribe((e: AgentSessionEvent) => {
      if (e.type === "message_start" || e.type === "message_end") events.push(`${e.type}:${e.message.role}`);
    });
    await ours.sendCustomMessage(note);
    await pi.sendCustomMessage(note);
    expect(events).toEqual(["message_start:custom", "message_end:custom"]);
    const strip = (e: object | undefined) => {
      const { id: _i, parentId: _p, timestamp: _t, ...rest } = e as Record<string, unknown>;
      return rest;
    };
    expect(strip(ours.sessionManager.getEntries().at(-1))).toEqual(strip(pi.sessionManager.getEntries().at(-1)));
    const { timestamp: _a, ...ourMessage } = ours.messages.at(-1) as unknown as Record<string, unknown>;
    const { timestamp: _b, ...piMessage } = pi.messages.at(-1) as unknown as Record<string, unknown>;
    expect(ourMessage).toEqual(piMessage);
    expect(requests).toHaveLength(0);
    ours.dispose();
    pi.dispose();
  });

  it("triggerTurn runs a turn on it: the model reads it as user text; pi reads the file back the same", async () => {
    const ours = await session();
    faux.setResponses([reply("noted")]);
    await ours.sendCustomMessage(note, { triggerTurn: true });
    expect(texts(requests[0])).toEqual(["remember the tests"]);
    expect(ours.messages.map((m) => m.role)).toEqual(["custom", "assistant"]);
    const file = ours.sessionFile as string;
    ours.dispose();
    const pi = Pi.SessionManager.open(file);
    expect(pi.getEntries().map((e) => e.type)).toEqual([
      "model_change",
      "thinking_level_change",
      "custom_message",
      "message",
    ]);
    expect(pi.buildSessionContext().messages.map((m) => m.role)).toEqual(["custom", "assistant"]);
    const reopened = await session(SessionManager.open(file));
    expect(reopened.messages.map((m) => m.role)).toEqual(["custom", "assistant"]);
    reopened.dispose();
  });

  it("nextTurn goes with the next prompt, after its user message", async () => {
    const ours = await session();
    faux.setResponses([reply("one"), reply("two")]);
    await ours.sendCustomMessage(note, { deliverAs: "nextTurn" });
    expect(ours.messages).toHaveLength(0);
    await ours.prompt("hello");
    expect(texts(requests[0])).toEqual(["hello", "remember the tests"]);
    await ours.prompt("again");
    expect(texts(requests[1])).toEqual(["hello", "remember the tests", "one", "again"]);
    ours.dispose();
  });

  it("a prompt refused for a missing key keeps the nextTurn message for the next prompt", async () => {
    const ours = await session();
    const keyless = { ...faux.getModel(), provider: "keyless-provider", id: "keyless" };
    ours.setModel(keyless);
    await ours.sendCustomMessage(note, { deliverAs: "nextTurn" });
    await expect(ours.prompt("hello")).rejects.toThrow(/No API key/);
    ours.setModel(faux.getModel());
    faux.setResponses([reply("one")]);
    await ours.prompt("hello again");
    expect(texts(requests[0])).toEqual(["hello again", "remember the tests"]);
    ours.dispose();
  });

  it("while running: steering comes in after the current reply, a follow-up when the loop would stop", async () => {
    const ours = await session();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let inFlight: () => void = () => {};
    const requested = new Promise<void>((r) => {
      inFlight = r;
    });
    faux.setResponses([
      async (ctx: Context) => {
        const answer = reply("first")(ctx);
        inFlight();
        await gate;
        return answer;
      },
      reply("after steer"),
      reply("after follow-up"),
    ]);
    const running = ours.prompt("start");
    await requested;
    await ours.sendCustomMessage({ ...note, content: "queued follow-up" }, { deliverAs: "followUp" });
    await ours.sendCustomMessage({ ...note, content: "queued steer" });
    release();
    await running;
    expect(requests.map(texts)).toEqual([
      ["start"],
      ["start", "first", "queued steer"],
      ["start", "first", "queued steer", "after steer", "queued follow-up"],
    ]);
    const types = ours.sessionManager.getEntries().map((e) => (e.type === "message" ? e.message.role : e.type));
    expect(types.filter((t) => t === "custom_message")).toHaveLength(2);
    ours.dispose();
  });
});

describe("AgentSession.sendUserMessage", () => {
  it("prompts with the text parts joined by newlines and the images attached", async () => {
    const ours = await session();
    faux.setResponses([reply("seen")]);
    await ours.sendUserMessage([
      { type: "text", text: "look at" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "this" },
    ]);
    const user = ours.messages[0];
    expect(user?.role === "user" && user.content).toEqual([
      { type: "text", text: "look at\nthis" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(texts(requests[0])).toEqual(["look at\nthis[image]"]);
    ours.dispose();
  });

  it("while running it needs deliverAs, like prompt", async () => {
    const ours = await session();
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let inFlight: () => void = () => {};
    const requested = new Promise<void>((r) => {
      inFlight = r;
    });
    faux.setResponses([
      async (ctx: Context) => {
        const answer = reply("a")(ctx);
        inFlight();
        await gate;
        return answer;
      },
      reply("b"),
    ]);
    const running = ours.prompt("start");
    await requested;
    await expect(ours.sendUserMessage("extra")).rejects.toThrow(/streamingBehavior/);
    await ours.sendUserMessage("extra", { deliverAs: "followUp" });
    release();
    await running;
    expect(texts(requests[1])).toEqual(["start", "a", "extra"]);
    ours.dispose();
  });
});
