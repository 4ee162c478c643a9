/**
 * AgentSession's pi controls — model and thinking-level cycling, the retry and compaction toggles and aborts, the
 * fork picker's user messages and the JSONL export — each driven on Tiller's AgentSession and, where the answer
 * does not depend on a provider, on pi's AgentSession with the same input, and compared.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import type { ThinkingLevel } from "@tiller/agent";
import { type AssistantMessage, fauxAssistantMessage, type Model, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentSession,
  type AgentSessionEvent,
  AuthStorage,
  CompactionError,
  clearSessionCache,
  createAgentSession,
  ModelRegistry,
  SessionManager,
  SettingsManager,
} from "../src/index.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-pi-controls-"));
  clearSessionCache();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const model = (provider: string, id: string, reasoning: boolean, extra: Partial<Model> = {}): Model => ({
  id,
  name: id,
  api: "openai-completions",
  provider,
  baseUrl: "http://127.0.0.1:9/v1",
  reasoning,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 100_000,
  maxTokens: 4096,
  ...extra,
});
const thinker = model("openai", "thinker", true);
const plain = model("anthropic", "plain", false);
const capped = model("openai", "capped", true, { thinkingLevelMap: { minimal: null, xhigh: "high" } });
const noAuth = model("mistral", "keyless", true);
const keys = { openai: "sk-o", anthropic: "sk-a" };

/** The same session on Tiller and on pi: in-memory session and settings, keys for openai and anthropic only. */
async function both(options: {
  model: Model;
  thinkingLevel: ThinkingLevel;
  scopedModels?: Array<{ model: Model; thinkingLevel?: ThinkingLevel }>;
  tillerSession?: SessionManager;
  piSession?: Pi.SessionManager;
}): Promise<{ ours: AgentSession; pi: Pi.AgentSession }> {
  const cred = (key: string) => ({ type: "api_key" as const, key });
  const { session: ours } = await createAgentSession({
    cwd: dir,
    home: join(dir, "home"),
    model: options.model,
    thinkingLevel: options.thinkingLevel,
    tools: [],
    ...(options.scopedModels ? { scopedModels: options.scopedModels } : {}),
    sessionManager: options.tillerSession ?? SessionManager.inMemory(dir),
    settingsManager: SettingsManager.inMemory(),
    modelRegistry: ModelRegistry.inMemory(
      AuthStorage.inMemory({ openai: cred(keys.openai), anthropic: cred(keys.anthropic) }),
    ),
  });
  const piAuth = Pi.AuthStorage.inMemory({ openai: cred(keys.openai), anthropic: cred(keys.anthropic) });
  const { session: pi } = await Pi.createAgentSession({
    cwd: dir,
    agentDir: join(dir, "pi-agent"),
    authStorage: piAuth,
    modelRegistry: Pi.ModelRegistry.inMemory(piAuth),
    model: options.model as never,
    thinkingLevel: options.thinkingLevel,
    ...(options.scopedModels ? { scopedModels: options.scopedModels as never } : {}),
    noTools: "all",
    sessionManager: options.piSession ?? Pi.SessionManager.inMemory(dir),
    settingsManager: Pi.SettingsManager.inMemory(),
  });
  return { ours, pi };
}

/** model and thinking-level entries written since `from`. */
const changes = (entries: ReadonlyArray<{ type: string }>, from: number) =>
  entries.slice(from).flatMap((e) => {
    const x = e as { type: string; provider?: string; modelId?: string; thinkingLevel?: string };
    if (x.type === "model_change") return [`model ${x.provider}/${x.modelId}`];
    if (x.type === "thinking_level_change") return [`thinking ${x.thinkingLevel}`];
    return [];
  });

describe("AgentSession: pi's model and thinking-level cycling", () => {
  it("cycles the scoped models that have auth, both ways, with their thinking levels, as pi does", async () => {
    const scopedModels = [
      { model: thinker, thinkingLevel: "low" as const },
      { model: plain },
      { model: noAuth },
      { model: capped },
    ];
    const { ours, pi } = await both({ model: thinker, thinkingLevel: "high", scopedModels });
    expect(ours.scopedModels.map((s) => s.model.id)).toEqual(pi.scopedModels.map((s) => s.model.id));
    const oursFrom = ours.sessionManager.getEntries().length;
    const piFrom = pi.sessionManager.getEntries().length;
    const steps = ["forward", "forward", "forward", "backward", "backward"] as const;
    const oursSeen: unknown[] = [];
    const piSeen: unknown[] = [];
    for (const d of steps) {
      const a = await ours.cycleModel(d);
      const b = await pi.cycleModel(d);
      oursSeen.push(a && { id: a.model.id, level: a.thinkingLevel, scoped: a.isScoped, now: ours.thinkingLevel });
      piSeen.push(b && { id: b.model.id, level: b.thinkingLevel, scoped: b.isScoped, now: pi.thinkingLevel });
    }
    expect(oursSeen).toEqual(piSeen);
    // The keyless model is never chosen; the walk visits plain and capped and comes back.
    expect(oursSeen.map((s) => (s as { id: string }).id)).toEqual(["plain", "capped", "thinker", "capped", "plain"]);
    expect(changes(ours.sessionManager.getEntries(), oursFrom)).toEqual(
      changes(pi.sessionManager.getEntries(), piFrom),
    );
    expect(ours.model.id).toBe("plain");
    expect(ours.settingsManager.get().defaultModel).toBe("plain");
    ours.dispose();
    pi.dispose();
  });

  it("has nothing to cycle to with a single usable model", async () => {
    const { ours, pi } = await both({
      model: thinker,
      thinkingLevel: "off",
      scopedModels: [{ model: thinker }, { model: noAuth }],
    });
    expect(await ours.cycleModel()).toBeUndefined();
    expect(await pi.cycleModel()).toBeUndefined();
    expect(ours.model.id).toBe("thinker");
    ours.dispose();
    pi.dispose();
  });

  it("cycles thinking levels within what the model accepts, and not at all without reasoning", async () => {
    for (const m of [thinker, capped, plain]) {
      const { ours, pi } = await both({ model: m, thinkingLevel: "off" });
      expect(ours.supportsThinking()).toBe(pi.supportsThinking());
      expect(ours.getAvailableThinkingLevels()).toEqual(pi.getAvailableThinkingLevels());
      const oursLevels: Array<string | undefined> = [];
      const piLevels: Array<string | undefined> = [];
      for (let i = 0; i < 7; i++) {
        oursLevels.push(ours.cycleThinkingLevel());
        piLevels.push(pi.cycleThinkingLevel());
      }
      expect(oursLevels).toEqual(piLevels);
      ours.dispose();
      pi.dispose();
    }
    const { ours } = await both({ model: capped, thinkingLevel: "off" });
    expect(ours.getAvailableThinkingLevels()).toEqual(["off", "low", "medium", "high", "xhigh"]);
    ours.dispose();
  });
});

describe("AgentSession: pi's retry and compaction controls", () => {
  it("toggles auto-retry in the settings, like pi", async () => {
    const { ours, pi } = await both({ model: thinker, thinkingLevel: "off" });
    expect(ours.autoRetryEnabled).toBe(pi.autoRetryEnabled);
    ours.setAutoRetryEnabled(false);
    pi.setAutoRetryEnabled(false);
    expect(ours.autoRetryEnabled).toBe(false);
    expect(ours.settingsManager.get().retry.enabled).toBe(false);
    expect(ours.retryAttempt).toBe(pi.retryAttempt);
    ours.dispose();
    pi.dispose();
  });

  it("abortRetry cancels the backoff wait: the prompt ends at once with the failure", async () => {
    const faux = registerFauxProvider();
    const failure: AssistantMessage = {
      ...fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
      errorStatus: 503,
    };
    faux.setResponses([failure, fauxAssistantMessage("never reached")]);
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      sessionManager: SessionManager.inMemory(dir),
      settingsManager: SettingsManager.inMemory({
        retry: { enabled: true, maxRetries: 3, baseDelayMs: 600_000, maxDelayMs: 600_000 },
      }),
    });
    const events: AgentSessionEvent[] = [];
    session.subscribe((e) => {
      if (e.type.startsWith("auto_retry")) events.push(e);
      if (e.type === "auto_retry_start") {
        expect(session.retryAttempt).toBe(1);
        session.abortRetry();
      }
    });
    await session.prompt("hello");
    expect(events.map((e) => e.type)).toEqual(["auto_retry_start", "auto_retry_end"]);
    expect(events[1]).toEqual({ type: "auto_retry_end", success: false, attempt: 1, finalError: "Retry cancelled" });
    expect(session.retryAttempt).toBe(0);
    expect(session.isStreaming).toBe(false);
    expect(faux.getPendingResponseCount()).toBe(1);
    faux.unregister();
    session.dispose();
  });

  it("abortCompaction cancels a manual compaction; the transcript is left as it was", async () => {
    const faux = registerFauxProvider();
    const long = "word ".repeat(400);
    faux.setResponses([
      fauxAssistantMessage(`first answer ${long}`),
      fauxAssistantMessage(`second answer ${long}`),
      // The summary request: waits until it is aborted.
      (_ctx, opts) =>
        new Promise((resolve) => {
          const done = () => resolve(fauxAssistantMessage([], { stopReason: "aborted", errorMessage: "aborted" }));
          if (opts?.signal?.aborted) done();
          opts?.signal?.addEventListener("abort", done, { once: true });
        }),
    ]);
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      sessionManager: SessionManager.inMemory(dir),
      settingsManager: SettingsManager.inMemory({
        compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 10 },
      }),
    });
    await session.prompt(`one ${long}`);
    await session.prompt(`two ${long}`);
    const before = session.messages.slice();
    const ends: AgentSessionEvent[] = [];
    session.subscribe((e) => {
      if (e.type === "compaction_start") queueMicrotask(() => session.abortCompaction());
      if (e.type === "compaction_end") ends.push(e);
    });
    await expect(session.compact()).rejects.toBeInstanceOf(CompactionError);
    expect(ends).toMatchObject([{ type: "compaction_end", reason: "manual", aborted: true, result: undefined }]);
    expect(session.messages).toEqual(before);
    expect(session.sessionManager.getEntries().some((e) => e.type === "compaction")).toBe(false);
    expect(session.isCompacting).toBe(false);
    faux.unregister();
    session.dispose();
  });
});

describe("AgentSession: pi's fork list and JSONL export", () => {
  /** A pi-written session with two branches, opened by both. */
  async function branched() {
    const piSm = Pi.SessionManager.create(dir, join(dir, "pi-sessions"));
    const u = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }], timestamp: 1 });
    const a = (text: string) =>
      ({ ...fauxAssistantMessage(text), api: "openai-completions", provider: "openai", model: "thinker" }) as never;
    piSm.appendMessage(u("first question"));
    const firstAnswer = piSm.appendMessage(a("first answer"));
    piSm.appendMessage(u("abandoned question"));
    piSm.appendMessage(a("abandoned answer"));
    piSm.branch(firstAnswer);
    piSm.appendMessage({ role: "user", content: "second question", timestamp: 2 });
    piSm.appendMessage({
      role: "user",
      content: [{ type: "image", data: "AA==", mimeType: "image/png" }],
      timestamp: 3,
    });
    piSm.appendMessage(a("second answer"));
    const file = piSm.getSessionFile() as string;
    const copy = join(dir, "copy.jsonl");
    copyFileSync(file, copy);
    return both({
      model: thinker,
      thinkingLevel: "off",
      tillerSession: SessionManager.open(copy),
      piSession: Pi.SessionManager.open(file),
    });
  }

  it("lists every user message with text, on all branches, as pi does", async () => {
    const { ours, pi } = await branched();
    const list = ours.getUserMessagesForForking();
    expect(list).toEqual(pi.getUserMessagesForForking());
    expect(list.map((m) => m.text)).toEqual(["first question", "abandoned question", "second question"]);
    ours.dispose();
    pi.dispose();
  });

  it("exports the current branch as a linear session file that pi reads back the same", async () => {
    const { ours, pi } = await branched();
    const oursFile = ours.exportToJsonl(join(dir, "out", "ours.jsonl"));
    const piFile = pi.exportToJsonl(join(dir, "out", "pi.jsonl"));
    const read = (f: string) =>
      readFileSync(f, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const [oursHead, ...oursBody] = read(oursFile);
    const [piHead, ...piAll] = read(piFile);
    // pi's createAgentSession records the thinking level in the file it opens; that entry is not the export's doing.
    const original = new Set(read(join(dir, "copy.jsonl")).map((e) => e.id));
    const piBody = piAll.filter((e) => original.has(e.id));
    expect(piBody).toHaveLength(piAll.length - 1);
    expect(oursBody).toEqual(piBody.map((e, i) => ({ ...e, parentId: i === 0 ? null : piBody[i - 1]?.id })));
    expect({ ...oursHead, timestamp: 0 }).toEqual({ ...piHead, timestamp: 0 });
    expect(oursBody.map((e) => e.parentId)).toEqual([null, ...oursBody.slice(0, -1).map((e) => e.id)]);
    const reread = Pi.SessionManager.open(oursFile).buildSessionContext().messages;
    expect(reread).toHaveLength(5);
    ours.dispose();
    pi.dispose();
  });
});
