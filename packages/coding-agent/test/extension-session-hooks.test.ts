/**
 * pi's extension hooks where the session decides: `session_before_compact` (cancel, or supply the compaction),
 * `session_compact`, `user_bash` (answer a command or run it elsewhere), `before_provider_request` (rewrite the
 * request body on the wire), and the pi-shaped context a registered ToolDefinition's `execute` receives.
 * Extensions are real files loaded by the resource loader; they reach the test through `globalThis.__hooks`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Api, fauxAssistantMessage, fauxToolCall, type Model, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type BashResult,
  createAgentSessionFromServices,
  createAgentSessionServices,
  SessionManager,
  SettingsManager,
} from "../src/index.js";
import { startMockOpenAI } from "./cli-helpers/mock-openai.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
const hooks = globalThis as { __hooks?: Record<string, (...args: never[]) => unknown> };
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-ext-hooks-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  delete hooks.__hooks;
  rmSync(dir, { recursive: true, force: true });
});

/** A session in `dir/proj` with one extension whose handlers forward `events` to `globalThis.__hooks[event]`. */
async function sessionWith(events: string[], extra = "", model: Model<Api> = faux.getModel(), apiKey?: string) {
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "proj");
  mkdirSync(join(agentDir, "extensions"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const ons = events.map((e) => `api.on("${e}", (event, ctx) => globalThis.__hooks["${e}"](event, ctx));`).join("\n");
  writeFileSync(join(agentDir, "extensions", "hooks.ts"), `export default function (api) {\n${ons}\n${extra}\n}\n`);
  const settingsManager = SettingsManager.inMemory({
    compaction: { enabled: false, reserveTokens: 16384, keepRecentTokens: 10 },
  });
  const services = await createAgentSessionServices({ cwd, agentDir, settingsManager });
  if (apiKey) services.authStorage.setRuntimeApiKey(model.provider, apiKey);
  const { session } = await createAgentSessionFromServices({
    services,
    sessionManager: SessionManager.inMemory(cwd),
    model,
  });
  return session;
}

const long = "word ".repeat(400);

describe("extension hooks in the session", () => {
  it("session_before_compact can cancel a compaction: nothing is written and compact() says why", async () => {
    faux.setResponses([fauxAssistantMessage(`first ${long}`), fauxAssistantMessage(`second ${long}`)]);
    const seen: Array<{ firstKept: string; entries: number; instructions?: string; signal: boolean }> = [];
    hooks.__hooks = {
      session_before_compact: ((e: {
        preparation: { firstKeptEntryId: string };
        branchEntries: unknown[];
        customInstructions?: string;
        signal: AbortSignal;
      }) => {
        seen.push({
          firstKept: e.preparation.firstKeptEntryId,
          entries: e.branchEntries.length,
          instructions: e.customInstructions,
          signal: e.signal instanceof AbortSignal,
        });
        return { cancel: true };
      }) as never,
    };
    const session = await sessionWith(["session_before_compact"]);
    await session.prompt(`one ${long}`);
    await session.prompt(`two ${long}`);
    await expect(session.compact("focus on words")).rejects.toThrow("Compaction cancelled by an extension");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.instructions).toBe("focus on words");
    expect(seen[0]?.signal).toBe(true);
    expect(seen[0]?.entries).toBe(session.sessionManager.getBranch().length);
    expect(session.sessionManager.getEntries().some((e) => e.type === "compaction")).toBe(false);
    session.dispose();
  });

  it("session_before_compact can supply the compaction; session_compact reports it as the extension's", async () => {
    // Only the two answers: a summary request to the model would find no response and fail the compaction.
    faux.setResponses([fauxAssistantMessage(`first ${long}`), fauxAssistantMessage(`second ${long}`)]);
    const compacted: Array<{ summary: string; fromExtension: boolean }> = [];
    hooks.__hooks = {
      session_before_compact: ((e: { preparation: { firstKeptEntryId: string; tokensBefore: number } }) => ({
        compaction: {
          summary: "SUMMARY BY EXTENSION",
          firstKeptEntryId: e.preparation.firstKeptEntryId,
          tokensBefore: e.preparation.tokensBefore,
        },
      })) as never,
      session_compact: ((e: { compactionEntry: { summary: string }; fromExtension: boolean }) => {
        compacted.push({ summary: e.compactionEntry.summary, fromExtension: e.fromExtension });
      }) as never,
    };
    const session = await sessionWith(["session_before_compact", "session_compact"]);
    await session.prompt(`one ${long}`);
    await session.prompt(`two ${long}`);
    const result = await session.compact();
    expect(result.summary).toBe("SUMMARY BY EXTENSION");
    const entry = session.sessionManager.getEntries().find((e) => e.type === "compaction");
    expect(entry && "summary" in entry ? entry.summary : undefined).toBe("SUMMARY BY EXTENSION");
    expect(compacted).toEqual([{ summary: "SUMMARY BY EXTENSION", fromExtension: true }]);
    session.dispose();
  });

  it("user_bash: an extension's result answers the command; its operations run it instead of the shell", async () => {
    const answered: BashResult = { output: "answered by extension", exitCode: 0, cancelled: false, truncated: false };
    const commands: string[] = [];
    hooks.__hooks = {
      user_bash: ((e: { command: string; cwd: string; excludeFromContext: boolean }) => {
        commands.push(`${e.command}|${e.excludeFromContext}`);
        if (e.command === "answer") return { result: answered };
        if (e.command === "elsewhere")
          return {
            operations: {
              exec: async (command: string, _cwd: string, opts: { onData: (b: Buffer) => void }) => {
                opts.onData(Buffer.from(`ran ${command.split("\n").pop()} remotely\n`));
                return { exitCode: 0 };
              },
            },
          };
        return undefined;
      }) as never,
    };
    const session = await sessionWith(["user_bash"]);
    expect(await session.executeBash("answer")).toEqual(answered);
    const remote = await session.executeBash("elsewhere", undefined, { excludeFromContext: true });
    expect(remote.output).toContain("ran elsewhere remotely");
    const local = await session.executeBash("echo local-shell");
    expect(local.output).toContain("local-shell");
    expect(commands).toEqual(["answer|false", "elsewhere|true", "echo local-shell|false"]);
    const recorded = session.messages
      .filter((m) => m.role === "bashExecution")
      .map((m) => (m as { output: string }).output);
    expect(recorded[0]).toBe("answered by extension");
    session.dispose();
  });

  it("a registered ToolDefinition's execute gets pi's context: session, model, UI without a UI, system prompt", async () => {
    const seen: Record<string, unknown>[] = [];
    hooks.__hooks = {
      tool_ctx: (async (ctx: {
        sessionManager: { getSessionId(): string };
        model?: { id: string };
        isIdle(): boolean;
        hasUI: boolean;
        signal?: AbortSignal;
        ui: { confirm(t: string, m: string): Promise<boolean>; select(t: string, o: string[]): Promise<unknown> };
        getSystemPrompt(): string;
        hasPendingMessages(): boolean;
      }) => {
        seen.push({
          sessionId: ctx.sessionManager.getSessionId(),
          model: ctx.model?.id,
          idle: ctx.isIdle(),
          hasUI: ctx.hasUI,
          signal: ctx.signal instanceof AbortSignal,
          confirm: await ctx.ui.confirm("sure?", "really"),
          select: await ctx.ui.select("pick", ["a"]),
          prompt: typeof ctx.getSystemPrompt(),
          pending: ctx.hasPendingMessages(),
        });
      }) as never,
    };
    const tool = `api.registerTool({ name: "probe", label: "probe", description: "reads its context",
      parameters: { type: "object", properties: {} },
      async execute(_id, _params, _signal, _onUpdate, ctx) {
        await globalThis.__hooks.tool_ctx(ctx);
        return { content: [{ type: "text", text: "probed" }], details: undefined };
      } });`;
    faux.setResponses([fauxAssistantMessage(fauxToolCall("probe", {})), fauxAssistantMessage("done")]);
    const session = await sessionWith([], tool);
    await session.prompt("probe it");
    expect(seen).toEqual([
      {
        sessionId: session.sessionId,
        model: faux.getModel().id,
        idle: false,
        hasUI: false,
        signal: true,
        confirm: false,
        select: undefined,
        prompt: "string",
        pending: false,
      },
    ]);
    session.dispose();
  });

  it("before_provider_request rewrites the request body; after_provider_response, model_select and thinking_level_select report", async () => {
    const seen: string[] = [];
    const server = await startMockOpenAI(() => ({ text: "hello" }));
    try {
      hooks.__hooks = {
        before_provider_request: ((e: { payload: Record<string, unknown> }) => ({
          ...e.payload,
          metadata: { tagged_by: "extension" },
        })) as never,
        after_provider_response: ((e: { status: number; headers: Record<string, string> }) => {
          seen.push(`response:${e.status}:${e.headers["content-type"]}`);
        }) as never,
        model_select: ((e: { model: { id: string }; previousModel?: { id: string }; source: string }) => {
          seen.push(`model:${e.previousModel?.id}->${e.model.id}:${e.source}`);
        }) as never,
        thinking_level_select: ((e: { level: string; previousLevel: string }) => {
          seen.push(`thinking:${e.previousLevel}->${e.level}`);
        }) as never,
      };
      const model: Model<Api> = {
        ...faux.getModel(),
        id: "mock-model",
        provider: "mock",
        api: "openai-completions",
        baseUrl: server.baseUrl,
        reasoning: true,
      } as Model<Api>;
      const session = await sessionWith(
        ["before_provider_request", "after_provider_response", "model_select", "thinking_level_select"],
        "",
        model,
        "test-key",
      );
      await session.prompt("hi");
      expect(session.getLastAssistantText()).toBe("hello");
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.metadata).toEqual({ tagged_by: "extension" });
      expect(server.requests[0]?.model).toBe("mock-model");
      expect(seen.filter((l) => l.startsWith("response:"))).toEqual(["response:200:text/event-stream"]);
      session.setThinkingLevel(session.thinkingLevel === "low" ? "high" : "low");
      const level = session.thinkingLevel;
      session.setModel(model); // the same model: no model_select
      session.setModel(faux.getModel());
      expect(seen.filter((l) => !l.startsWith("response:"))).toEqual([
        expect.stringMatching(new RegExp(`^thinking:\\w+->${level}$`)),
        `model:mock-model->${faux.getModel().id}:set`,
        // faux's model has no reasoning: the level is clamped to off.
        `thinking:${level}->off`,
      ]);
      session.dispose();
    } finally {
      await server.close();
    }
  });
  it("session_before_tree can cancel a move or supply the branch summary; session_tree reports the move", async () => {
    // Two answers only: a branch summary asked of the model would find no response.
    faux.setResponses([fauxAssistantMessage("first answer"), fauxAssistantMessage("second answer")]);
    const trees: Array<{ newLeafId: string | null; summary?: string; fromExtension?: boolean }> = [];
    let veto = true;
    const preparations: Array<{ targetId: string; entries: number; wants: boolean }> = [];
    hooks.__hooks = {
      session_before_tree: ((e: {
        preparation: { targetId: string; entriesToSummarize: unknown[]; userWantsSummary: boolean };
      }) => {
        preparations.push({
          targetId: e.preparation.targetId,
          entries: e.preparation.entriesToSummarize.length,
          wants: e.preparation.userWantsSummary,
        });
        return veto ? { cancel: true } : { summary: { summary: "BRANCH SUMMARY BY EXTENSION" }, label: "tried" };
      }) as never,
      session_tree: ((e: { newLeafId: string | null; summaryEntry?: { summary: string }; fromExtension?: boolean }) => {
        trees.push({ newLeafId: e.newLeafId, summary: e.summaryEntry?.summary, fromExtension: e.fromExtension });
      }) as never,
    };
    const session = await sessionWith(["session_before_tree", "session_tree"]);
    await session.prompt("first question");
    await session.prompt("second question");
    const sm = session.sessionManager;
    const firstAnswer = sm.getEntries().find((e) => e.type === "message" && e.message.role === "assistant")!;
    const leaf = sm.getLeafId();
    expect(await session.navigateTree(firstAnswer.id, { summarize: true })).toMatchObject({ cancelled: true });
    expect(sm.getLeafId()).toBe(leaf);
    expect(trees).toEqual([]);
    veto = false;
    const moved = await session.navigateTree(firstAnswer.id, { summarize: true });
    expect(moved.cancelled).toBe(false);
    expect(moved.summaryEntry?.summary).toBe("BRANCH SUMMARY BY EXTENSION");
    expect(sm.getLabel(moved.summaryEntry!.id)).toBe("tried");
    expect(preparations).toEqual([
      { targetId: firstAnswer.id, entries: 2, wants: true },
      { targetId: firstAnswer.id, entries: 2, wants: true },
    ]);
    expect(trees).toEqual([{ newLeafId: sm.getLeafId(), summary: "BRANCH SUMMARY BY EXTENSION", fromExtension: true }]);
    session.dispose();
  });
});
