// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Plugin and gateway hooks at their points in real runs: a real gateway process (tools enabled) with plugins from
 * $TILLER_HOME/plugins and plugins.load, gateway hooks from $TILLER_HOME/hooks, a real WebSocket client and a
 * loopback OpenAI-compatible mock that calls the exec tool when asked. Every plugin appends what it saw to
 * $TILLER_HOME/hook-log.jsonl, which the tests read.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MockReply, type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import {
  agentEvents,
  connectClient,
  type GatewayProc,
  makeHome,
  removeHome,
  spawnGateway,
  until,
} from "./gateway-harness.js";

let mock: MockServer;
let gw: GatewayProc;
let home: string;

const usage = { input: 10, output: 5 };
const text = (parts: string[]): MockReply => ({ events: openaiChatEvents({ text: parts, usage }) });
const toolCall = (command: string): MockReply => ({
  events: openaiChatEvents({
    toolCalls: [{ id: `call_${randomUUID().slice(0, 8)}`, name: "exec", args: [JSON.stringify({ command })] }],
    finish: "tool",
    usage,
  }),
});

const toolCallOf = (name: string, args: Record<string, unknown>): MockReply => ({
  events: openaiChatEvents({
    toolCalls: [{ id: `call_${randomUUID().slice(0, 8)}`, name, args: [JSON.stringify(args)] }],
    finish: "tool",
    usage,
  }),
});

function contentText(c: unknown): string {
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p: any) => p.text ?? "").join("");
  return "";
}

/** The mock's behaviour: directives in the last user message; after a tool result, echo it. */
function script(body: any): MockReply {
  const messages: any[] = body?.messages ?? [];
  const last = messages.at(-1);
  const user = contentText([...messages].reverse().find((m) => m.role === "user")?.content);
  if (last?.role === "tool" && user.includes("[read-missing]")) return text(["NO_REPLY"]);
  if (last?.role === "tool" && user.includes("[relay]")) return text(["Relayed: the build is green."]);
  if (last?.role === "tool") return text(["done: ", contentText(last.content).trim()]);
  if (user.includes("[read-missing]")) return toolCallOf("read", { path: "no-such-file.txt" });
  if (user.includes("[relay]")) {
    return toolCallOf("sessions_send", {
      sessionKey: "agent:main:relay-target",
      message: "Relayed: the build is green.",
    });
  }
  if (user.includes("[exec]")) return toolCall("echo hello-from-exec");
  if (user.includes("[danger]")) return toolCall("rm -rf /tmp/tiller-should-never-run");
  if (user.includes("[think]")) return text(["<thi", "nk>hidden reasoning</thi", "nk>Visible [[rep", "ly:m1]] answer"]);
  return text([`echo: ${user}`]);
}

const PLUGIN_LOG = `
import { appendFileSync } from "node:fs";
import { join } from "node:path";
const log = (plugin, hook, extra = {}) =>
  appendFileSync(join(process.env.TILLER_HOME, "hook-log.jsonl"), JSON.stringify({ plugin, hook, ...extra }) + "\\n");
`;

beforeAll(async () => {
  mock = await startOpenAIMock((req) => script(req.body));
  home = makeHome({
    mockBaseUrl: mock.baseUrl,
    config: { tools: { enabled: true }, plugins: { load: ["./extra-plugins/low.mjs"] } },
  });
  mkdirSync(join(home, "plugins", "recorder"), { recursive: true });
  mkdirSync(join(home, "extra-plugins"));
  // The guard, in TypeScript (loaded through tsx): blocks dangerous exec calls at priority 100.
  writeFileSync(
    join(home, "plugins", "guard.ts"),
    `${PLUGIN_LOG}
interface Api { on(name: string, h: (e: any, ctx: any) => unknown, o?: { priority?: number }): void }
export default function register(api: Api): void {
  api.on("before_tool_call", (e: { toolName: string; toolCallId: string; params: { command?: string } }) => {
    log("guard", "before_tool_call", { id: e.toolCallId });
    if (e.toolName === "exec" && /rm\\s+-rf/.test(e.params.command ?? "")) return { block: true, blockReason: "dangerous command" };
    return undefined;
  }, { priority: 100 });
}
`,
  );
  // Runs first (priority 200) and says block:false: a no-op that must not clear the guard's block.
  writeFileSync(
    join(home, "plugins", "allow.mjs"),
    `${PLUGIN_LOG}
export default { id: "allow-all", register(api) {
  api.on("before_tool_call", (e) => { log("allow-all", "before_tool_call", { id: e.toolCallId }); return { block: false }; }, { priority: 200 });
} };
`,
  );
  // Lowest priority, from plugins.load: must never see a blocked call.
  writeFileSync(
    join(home, "extra-plugins", "low.mjs"),
    `${PLUGIN_LOG}
export function register(api) {
  api.on("before_tool_call", (e) => { log("low", "before_tool_call", { id: e.toolCallId, command: e.params.command }); }, { priority: 10 });
}
`,
  );
  // A folder plugin that records every hook and acts on some prompts.
  writeFileSync(
    join(home, "plugins", "recorder", "package.json"),
    JSON.stringify({ name: "recorder", main: "index.mjs" }),
  );
  writeFileSync(
    join(home, "plugins", "recorder", "index.mjs"),
    `${PLUGIN_LOG}
const observe = ["message_received", "session_start", "session_end", "agent_end", "after_tool_call", "message_sent", "gateway_start", "gateway_stop", "before_compaction", "after_compaction"];
export default function register(api) {
  for (const name of observe) api.on(name, (e, ctx) => log("recorder", name, { sessionKey: ctx.sessionKey ?? e.sessionKey, success: e.success, content: e.content, toolName: e.toolName }));
  api.on("before_model_resolve", (e) => { log("recorder", "before_model_resolve", { prompt: e.prompt }); });
  api.on("before_agent_start", () => { log("recorder", "before_agent_start"); return { appendSystemContext: "LEGACY-START-CONTEXT" }; });
  api.on("before_prompt_build", (e) => { log("recorder", "before_prompt_build", { messages: e.messages.length }); return { prependSystemContext: "RECORDER-CONTEXT", prependContext: "Turn note from recorder." }; });
  api.on("before_agent_reply", (e) => {
    log("recorder", "before_agent_reply");
    if (e.prompt.includes("[claim]")) return { handled: true, reply: "claimed by plugin" };
    if (e.prompt.includes("[shh]")) return { handled: true };
    return { handled: false };
  });
  api.on("tool_result_persist", (e) => {
    log("recorder", "tool_result_persist", { toolName: e.toolName });
    return { message: { ...e.message, content: e.message.content.map((c) => c.type === "text" ? { ...c, text: c.text.replaceAll("hello-from-exec", "[redacted]") } : c) } };
  });
  api.on("message_sending", (e) => {
    log("recorder", "message_sending", { content: e.content });
    if (e.content.includes("[cancel]")) return { cancel: true };
    return { content: e.content + " (via recorder)" };
  });
}
`,
  );
  // A plugin whose hook throws: logged and skipped, the run goes on.
  writeFileSync(
    join(home, "plugins", "thrower.mjs"),
    `export default (api) => api.on("before_prompt_build", () => { throw new Error("thrower exploded"); }, { priority: 5 });\n`,
  );
  // Gateway hooks: agent:bootstrap adds a file; /new answers.
  mkdirSync(join(home, "hooks", "bootstrap-extra"), { recursive: true });
  writeFileSync(join(home, "hooks", "bootstrap-extra", "HOOK.md"), '---\nevents: ["agent:bootstrap"]\n---\n');
  writeFileSync(
    join(home, "hooks", "bootstrap-extra", "handler.mjs"),
    "export default (e) => { e.context.bootstrapFiles.push({ name: 'EXTRA.md', path: '/virtual/EXTRA.md', content: 'Injected by the bootstrap hook.' }); };\n",
  );
  writeFileSync(
    join(home, "hooks", "on-new.mjs"),
    "export const events = ['command:new', 'command:stop'];\nexport default (e) => { e.messages.push('hook saw /' + e.action); };\n",
  );
  gw = await spawnGateway(home);
}, 60_000);

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (home) removeHome(home);
});

function hookLog(): { plugin: string; hook: string; [k: string]: unknown }[] {
  const file = join(home, "hook-log.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

async function run(message: string, sessionKey: string) {
  const { client, events } = await connectClient(gw.url, { scopes: ["operator.write", "operator.admin"] });
  const runId = randomUUID();
  const requestsBefore = mock.requests.length;
  try {
    const final: any = await client.request(
      "agent",
      { message, idempotencyKey: runId, sessionKey },
      { expectFinal: true, timeoutMs: 30_000 },
    );
    return { final, events: agentEvents(events, runId), requests: mock.requests.slice(requestsBefore) };
  } finally {
    await client.close();
  }
}

describe("plugins in a real gateway run", () => {
  it("gateway_start fires once the gateway is up; every plugin loaded", () => {
    expect(hookLog().filter((l) => l.hook === "gateway_start")).toHaveLength(1);
    expect(gw.stderr.join("")).toMatch(/loaded guard/);
  });

  it("a tool run: prompt hooks shape the prompt, tool hooks run by priority, results are persisted redacted", async () => {
    const { final, requests } = await run("[exec] run it", "tools");
    expect(final.status).toBe("ok");
    expect(final.result.payloads).toHaveLength(1);
    expect(final.result.payloads[0].text).toMatch(/^done: hello-from-exec[\s\S]* \(via recorder\)$/);

    // The model saw: plugins' system context, the tool list, bootstrap files (incl. the hook's), the turn note.
    const first = requests[0]?.body;
    const system = contentText(first.messages.find((m: any) => m.role === "system" || m.role === "developer")?.content);
    expect(system.startsWith("RECORDER-CONTEXT")).toBe(true);
    expect(system.endsWith("LEGACY-START-CONTEXT")).toBe(true);
    expect(system).toContain("- exec:");
    expect(system).not.toContain("- bash:");
    expect(system).toContain("## EXTRA.md\n\nInjected by the bootstrap hook.");
    expect(system).toContain("# Project Context");
    expect(first.tools.map((t: any) => t.function.name)).toContain("exec");
    const user = contentText(first.messages.filter((m: any) => m.role === "user").at(-1)?.content);
    expect(user).toBe("Turn note from recorder.\n\n[exec] run it");
    // The second model call got the real tool output.
    expect(contentText(requests[1]?.body.messages.at(-1).content)).toContain("hello-from-exec");

    const log = hookLog();
    const tool = log.filter((l) => l.hook === "before_tool_call").map((l) => l.plugin);
    expect(tool).toEqual(["allow-all", "guard", "low"]);
    const order = log.map((l) => l.hook);
    for (const h of [
      "message_received",
      "session_start",
      "before_model_resolve",
      "before_agent_start",
      "before_prompt_build",
      "before_agent_reply",
      "after_tool_call",
      "tool_result_persist",
      "agent_end",
      "message_sending",
      "message_sent",
    ]) {
      expect(order).toContain(h);
    }
    expect(order.indexOf("before_model_resolve")).toBeLessThan(order.indexOf("before_prompt_build"));
    expect(order.indexOf("before_prompt_build")).toBeLessThan(order.indexOf("before_agent_reply"));
    expect(order.lastIndexOf("message_sending")).toBeLessThan(order.lastIndexOf("message_sent"));
    expect(gw.stderr.join("")).toContain("thrower exploded");

    // tool_result_persist: the transcript holds the plugin's version of the tool result.
    const dir = join(home, "sessions", "gateway", "main");
    const transcript = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), "utf8"))
      .join("\n");
    const toolLines = transcript.split("\n").filter((l) => l.includes('"toolResult"'));
    expect(toolLines.length).toBeGreaterThan(0);
    expect(toolLines.join("\n")).toContain("[redacted]");
    expect(toolLines.join("\n")).not.toContain("hello-from-exec");
  });

  it("a dangerous call is blocked by the guard: block:false earlier is a no-op, lower priority never runs", async () => {
    const before = hookLog().length;
    const { final, requests } = await run("[danger] clean up", "danger");
    expect(final.status).toBe("ok");
    // The model got the block reason as the tool result, and said so.
    expect(contentText(requests[1]?.body.messages.at(-1).content)).toContain("dangerous command");
    expect(final.result.payloads[0].text).toContain("Tool call blocked: dangerous command");
    const log = hookLog().slice(before);
    expect(log.filter((l) => l.hook === "before_tool_call").map((l) => l.plugin)).toEqual(["allow-all", "guard"]);
    expect(log.some((l) => l.hook === "after_tool_call")).toBe(false);
  });

  it("before_agent_reply claims a turn with a synthetic reply, or silences it; no model call either way", async () => {
    const claimed = await run("[claim] hi", "claim");
    expect(claimed.requests).toHaveLength(0);
    expect(claimed.final.result.payloads).toEqual([{ text: "claimed by plugin (via recorder)", mediaUrl: null }]);
    const silent = await run("[shh] hi", "claim");
    expect(silent.requests).toHaveLength(0);
    expect(silent.final.status).toBe("ok");
    expect(silent.final.result.payloads).toEqual([]);
  });

  it("message_sending cancel drops the reply", async () => {
    const r = await run("please [cancel]", "cancel");
    expect(r.requests).toHaveLength(1);
    expect(r.final.result.payloads).toEqual([]);
  });

  it("the assistant stream and payloads are shaped: think tags and directives never reach the client", async () => {
    const r = await run("[think] go", "think");
    const deltas = r.events.filter((e) => e.stream === "assistant" && typeof e.data.delta === "string");
    const streamed = deltas.map((e) => e.data.delta).join("");
    expect(streamed).toBe("Visible  answer");
    expect(JSON.stringify(r.events)).not.toContain("hidden reasoning");
    // The [[reply:m1]] directive became a payload field.
    expect(r.final.result.payloads).toEqual([
      { text: "Visible  answer (via recorder)", mediaUrl: null, replyToId: "m1" },
    ]);
  });

  it("when nothing renders and a tool failed, the reply is a short tool-error message", async () => {
    const r = await run("[read-missing] show me", "tool-error");
    expect(r.requests).toHaveLength(2);
    expect(r.final.result.payloads).toHaveLength(1);
    expect(r.final.result.payloads[0]).toMatchObject({ isError: true });
    expect(r.final.result.payloads[0].text).toMatch(/^⚠️ read failed: .*no-such-file\.txt.* \(via recorder\)$/);
  });

  it("text a messaging tool (sessions_send) already delivered is not sent again", async () => {
    const r = await run("[relay] tell the other session", "relay");
    expect(r.requests.length).toBeGreaterThanOrEqual(2);
    expect(r.final.status).toBe("ok");
    expect(r.final.result.payloads).toEqual([]);
    // The target session got the message as a run of its own.
    await until(
      () =>
        mock.requests.some((q) => {
          const lastMsg = q.body.messages.at(-1);
          return lastMsg?.role === "user" && contentText(lastMsg.content).includes("Relayed: the build is green.");
        }),
      10_000,
      "the relayed run",
    );
  });

  it("/context answers with the run's prompt report (sections, files, sizes) without a model call", async () => {
    const r = await run("/context", "context");
    expect(r.requests).toHaveLength(0);
    const report = r.final.result.payloads[0].text as string;
    expect(report).toMatch(/^System prompt \(full\): \d+ chars, ~\d+ tokens/);
    expect(report).toContain("  project_context: ");
    expect(report).toMatch(/file EXTRA\.md: (\d+)\/\1 chars \(ok\)/);
    expect(report).toContain("file SOUL.md: 0/0 chars (missing)");
    expect(report).toMatch(/tools: \d+ \(schemas \d+ chars\)/);
  });

  it("compaction hooks fire around a compaction of a tool session (sessions.compact)", async () => {
    const before = hookLog().length;
    const { client } = await connectClient(gw.url, { scopes: ["operator.write", "operator.admin"] });
    try {
      await client.request("sessions.patch", { key: "compact-me", model: "mock/mock-small" });
      for (const w of ["first", "second", "third", "fourth"]) {
        await client.request(
          "agent",
          {
            message: `${w} topic ${"lorem ipsum ".repeat(120)}`,
            idempotencyKey: randomUUID(),
            sessionKey: "compact-me",
          },
          { expectFinal: true, timeoutMs: 30_000 },
        );
      }
      const r: any = await client.request("sessions.compact", { key: "compact-me" }, { timeoutMs: 30_000 });
      expect(r).toMatchObject({ ok: true, compacted: true });
    } finally {
      await client.close();
    }
    const hooksSeen = hookLog()
      .slice(before)
      .map((l) => l.hook);
    expect(hooksSeen).toContain("before_compaction");
    expect(hooksSeen).toContain("after_compaction");
    expect(hooksSeen.indexOf("before_compaction")).toBeLessThan(hooksSeen.lastIndexOf("after_compaction"));
  });

  it("/new runs the command hook (its message is in the reply) and ends the old session (session_end)", async () => {
    const before = hookLog().length;
    const r = await run("/new", "tools");
    expect(r.final.result.payloads[0].text).toMatch(/^New session started \(.+\)\.\n\nhook saw \/new$/);
    await until(
      () =>
        hookLog()
          .slice(before)
          .some((l) => l.hook === "session_end"),
      5000,
      "session_end",
    );
    const stop = await run("/stop", "tools");
    expect(stop.final.result.payloads[0].text).toBe("Nothing to stop.\n\nhook saw /stop");
  });

  it("gateway_stop fires when the gateway shuts down", async () => {
    await gw.stop();
    expect(hookLog().filter((l) => l.hook === "gateway_stop")).toHaveLength(1);
  });
});
