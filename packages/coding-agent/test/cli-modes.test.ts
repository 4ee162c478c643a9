import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { type ChatRequestBody, lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { startRpc } from "./cli-helpers/rpc-client.js";
import { runCli } from "./cli-helpers/spawn-cli.js";

let server: MockServer;
let fx: CliFixture;

function systemPromptOf(body: ChatRequestBody): string {
  const sys = body.messages.find((m) => m.role === "system" || m.role === "developer");
  return typeof sys?.content === "string" ? sys.content : JSON.stringify(sys?.content ?? "");
}

function requestFor(text: string): ChatRequestBody {
  const found = server.requests.find((r) => lastUserText(r).includes(text));
  if (!found) throw new Error(`no request with "${text}"`);
  return found;
}

beforeAll(async () => {
  server = await startMockOpenAI((body) => {
    const user = lastUserText(body);
    const last = body.messages[body.messages.length - 1]!;
    if (user.includes("delete it") && last.role !== "tool") {
      return {
        toolCalls: [{ name: "bash", arguments: { command: `rm -f ${join(fx.root, "ext-project", "precious.txt")}` } }],
      };
    }
    if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content)}` };
    if (user.includes("trigger-error")) return { status: 400 };
    return { text: `Echo: ${user}` };
  });
  fx = makeFixture(server);
  writeFileSync(join(fx.project, "AGENTS.md"), "PROJECT-RULE: answer in French.");
  mkdirSync(join(fx.project, ".tiller", "skills", "release-notes"), { recursive: true });
  writeFileSync(
    join(fx.project, ".tiller", "skills", "release-notes", "SKILL.md"),
    "---\nname: release-notes\ndescription: Write release notes from git log.\n---\nSteps...",
  );
  mkdirSync(join(fx.project, ".tiller", "skills", "broken"), { recursive: true });
  writeFileSync(join(fx.project, ".tiller", "skills", "broken", "SKILL.md"), "---\nname: broken\n---\nno description");
});

afterAll(async () => {
  await server.close();
  fx.cleanup();
});

describe("tiller -p (print mode)", () => {
  it("prints the final answer, sends context files and skills in the system prompt, and saves the session", async () => {
    const r = await runCli(["-p", "hello print"], { cwd: fx.project, env: fx.env });
    expect(r.stderr).toContain("skill"); // the broken skill is reported...
    expect(r.stderr).toContain("missing `description`");
    expect(r.code).toBe(0); // ...and is not fatal
    expect(r.stdout).toBe("Echo: hello print\n");
    const sys = systemPromptOf(requestFor("hello print"));
    expect(sys).toContain("PROJECT-RULE: answer in French.");
    expect(sys).toContain("<name>release-notes</name>");
    expect(sys).toContain("Write release notes from git log.");
    expect(sys).not.toContain("<name>broken</name>");
    const sessions = join(fx.home, "sessions");
    const files = readdirSync(sessions, { recursive: true }).filter((f) => String(f).endsWith(".jsonl"));
    expect(files.length).toBeGreaterThan(0);
  });

  it("a provider error ends with exit code 1 and the provider's message on stderr, nothing on stdout", async () => {
    const r = await runCli(["-p", "--no-session", "trigger-error"], { cwd: fx.project, env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/400|mock error/);
    // A 400 is not retried.
    expect(server.requests.filter((b) => lastUserText(b) === "trigger-error")).toHaveLength(1);
  });

  it("runs on the offline model with a note on stderr when no provider is configured", async () => {
    const bare = makeFixture(undefined, "tiller-offline-");
    try {
      const r = await runCli(["-p", "--no-session", "hello"], { cwd: bare.project, env: bare.env });
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("running on the offline model");
      expect(r.stdout).toContain("[offline model]");
    } finally {
      bare.cleanup();
    }
  });

  it("an unknown model or tool is a usage error (exit 2); --list-models shows models.json entries", async () => {
    const [model, tool, list] = await Promise.all([
      runCli(["-p", "--model", "nope-9", "hi"], { cwd: fx.project, env: fx.env }),
      runCli(["-p", "--tools", "read,teleport", "hi"], { cwd: fx.project, env: fx.env }),
      runCli(["--list-models", "mock"], { cwd: fx.project, env: fx.env }),
    ]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^mock\/mock-1\s+ready/m);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain('unknown model "nope-9"');
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain('unknown tool "teleport"');
  });
});

describe("extensions end to end", () => {
  it("a project extension blocks a dangerous tool call; the model sees the reason and the file survives", async () => {
    const project = join(fx.root, "ext-project");
    const precious = join(project, "precious.txt");
    mkdirSync(join(project, ".tiller", "extensions"), { recursive: true });
    writeFileSync(precious, "keep me");
    writeFileSync(
      join(project, ".tiller", "extensions", "guard.ts"),
      `export default function (api: { on: (e: string, h: (ev: any) => unknown) => void }): void {
         api.on("tool_call", (ev) => {
           const cmd: string = String(ev.input.command ?? "");
           if (ev.toolName === "bash" && cmd.includes("rm ")) return { block: true, reason: "GUARD: no deleting" };
           return undefined;
         });
       }`,
    );
    const r = await runCli(["--mode", "json", "--no-session", "please delete it"], { cwd: project, env: fx.env });
    expect(r.code).toBe(0);
    expect(existsSync(precious)).toBe(true);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; isError?: boolean; toolName?: string });
    const end = events.find((e) => e.type === "tool_execution_end");
    expect(end).toMatchObject({ toolName: "bash", isError: true });
    const followUp = server.requests.find(
      (b) => lastUserText(b).includes("please delete it") && b.messages[b.messages.length - 1]!.role === "tool",
    )!;
    expect(JSON.stringify(followUp.messages[followUp.messages.length - 1]!.content)).toContain("GUARD: no deleting");
  });
});

describe("extensions change the run", () => {
  it("--extension: before_agent_start rewrites the system prompt, a registered tool is offered, a command runs locally", async () => {
    const ext = join(fx.root, "shaper.mjs");
    const marker = join(fx.root, "command-ran.txt");
    writeFileSync(
      ext,
      `import { writeFileSync } from "node:fs";
       export default (api) => {
         api.on("before_agent_start", (e) => ({ systemPrompt: e.systemPrompt + "\\nEXT-SYSTEM-LINE" }));
         api.registerTool({
           name: "echo_tool", label: "echo", description: "Echo text back.",
           parameters: { type: "object", properties: { text: { type: "string" } } },
           execute: async (_id, p) => ({ content: [{ type: "text", text: String(p.text) }], details: {} }),
         });
         api.registerCommand("mark", { handler: (args) => writeFileSync(${JSON.stringify(marker)}, args) });
       };`,
    );
    const before = server.requests.length;
    const [run, command] = await Promise.all([
      runCli(["-p", "--no-session", "--extension", ext, "shaped prompt"], { cwd: fx.project, env: fx.env }),
      runCli(["-p", "--no-session", "-e", ext, "/mark done"], { cwd: fx.project, env: fx.env }),
    ]);
    expect(run.code).toBe(0);
    const body = requestFor("shaped prompt");
    expect(systemPromptOf(body)).toContain("EXT-SYSTEM-LINE");
    expect(body.tools?.map((t) => t.function.name)).toContain("echo_tool");
    expect(command.code).toBe(0);
    expect(readFileSync(marker, "utf8")).toBe("done");
    // The command was handled locally: only the other run reached the provider.
    expect(server.requests.slice(before).filter((r) => lastUserText(r).includes("/mark"))).toHaveLength(0);
  });
});

describe("tiller --mode json", () => {
  it("writes a session header, then every event as one JSON line, deltas without the partial message", async () => {
    const r = await runCli(["--mode", "json", "--no-session", "json please"], { cwd: fx.project, env: fx.env });
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events[0]).toMatchObject({ type: "session", model: { provider: "mock", id: "mock-1" } });
    const types = events.map((e) => e.type);
    expect(types).toContain("agent_start");
    expect(types[types.length - 1]).toBe("agent_end");
    const deltas = events.filter(
      (e) => e.type === "message_update" && (e.assistantMessageEvent as { type: string }).type === "text_delta",
    );
    expect(deltas.map((d) => (d.assistantMessageEvent as { delta: string }).delta).join("")).toBe("Echo: json please");
    for (const d of deltas) {
      expect(d).not.toHaveProperty("message");
      expect(d.assistantMessageEvent).not.toHaveProperty("partial");
    }
  });
});

describe("tiller --mode rpc", () => {
  it("answers commands by id, streams events, keeps U+2028 inside a message, reports bad input", async () => {
    const rpc = startRpc(["--no-session"], { cwd: fx.project, env: fx.env });
    const { send, waitFor } = rpc;
    try {
      send({ id: "s1", type: "get_state" });
      const state = await waitFor((l) => l.id === "s1", "get_state");
      expect(state).toMatchObject({ type: "response", command: "get_state", success: true });
      expect((state.data as { model: { id: string } }).model.id).toBe("mock-1");

      rpc.sendRaw('{"id":"bad", "type": \n'); // broken JSON
      send({ id: "u1", type: "teleport" });
      send({ id: "t1", type: "set_thinking_level", level: "enormous" });
      expect(await waitFor((l) => l.command === "parse", "parse error")).toMatchObject({ success: false });
      expect(await waitFor((l) => l.id === "u1", "unknown")).toMatchObject({
        success: false,
        error: 'unknown command "teleport"',
      });
      expect(await waitFor((l) => l.id === "t1", "bad level")).toMatchObject({ success: false });

      send({ id: "p1", type: "prompt", message: "line\u2028sep\u2029para" });
      expect(await waitFor((l) => l.id === "p1", "prompt response")).toMatchObject({
        success: true,
        command: "prompt",
      });
      await waitFor((l) => l.type === "agent_end", "agent_end");
      expect(lastUserText(requestFor("line"))).toBe("line\u2028sep\u2029para");

      send({ id: "m1", type: "get_messages" });
      const msgs = await waitFor((l) => l.id === "m1", "get_messages");
      const messages = (msgs.data as { messages: Array<{ role: string }> }).messages;
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
      send({ id: "l1", type: "get_last_assistant_text" });
      expect(await waitFor((l) => l.id === "l1", "last text")).toMatchObject({
        data: { text: "Echo: line\u2028sep\u2029para" },
      });
      send({ id: "n1", type: "new_session" });
      await waitFor((l) => l.id === "n1", "new_session");
      send({ id: "s2", type: "get_state" });
      expect(await waitFor((l) => l.id === "s2", "state after new")).toMatchObject({ data: { messageCount: 0 } });
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });
});
