import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  type Context,
  complete,
  getOfflineModel,
  matchOfflineTool,
  OFFLINE_LABEL,
  stream,
  streamSimple,
  type Tool,
  type ToolResultMessage,
  Type,
} from "../src/index.js";

const tool = (name: string, props: Record<string, ReturnType<typeof Type.String>>): Tool => ({
  name,
  description: name,
  parameters: Type.Object(props),
});
const CODING_TOOLS: Tool[] = [
  tool("read", { path: Type.String() }),
  tool("ls", { path: Type.String() }),
  tool("bash", { command: Type.String() }),
  tool("find", { pattern: Type.String(), path: Type.String() }),
  tool("grep", { pattern: Type.String(), path: Type.String() }),
];

function user(text: string) {
  return { role: "user" as const, content: text, timestamp: 0 };
}

function text(message: AssistantMessage): string {
  return message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

const dir = mkdtempSync(join(tmpdir(), "tiller-offline-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("offline model", () => {
  it("is in the catalog as offline/tiller-offline and costs nothing", () => {
    const model = getOfflineModel();
    expect(model).toMatchObject({ provider: "offline", id: "tiller-offline", api: "offline" });
    expect(model.cost.input + model.cost.output).toBe(0);
  });

  it("labels a chat reply as offline and explains how to configure a real provider", async () => {
    const reply = await complete(getOfflineModel(), {
      messages: [user("What is the capital of France?")],
      tools: CODING_TOOLS,
    });
    expect(reply.stopReason).toBe("stop");
    const t = text(reply);
    expect(t.startsWith(OFFLINE_LABEL)).toBe(true);
    for (const v of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "models.json", "11434"]) {
      expect(t).toContain(v);
    }
    expect(t).toContain('"read README.md"');
    expect(reply.usage.input).toBeGreaterThan(0);
    expect(reply.usage.cost.total).toBe(0);
  });

  it("is deterministic: the same context gives the same reply", async () => {
    const context: Context = { messages: [user("hello")], tools: CODING_TOOLS };
    const a = await complete(getOfflineModel(), context);
    const b = await complete(getOfflineModel(), context);
    expect(a.content).toEqual(b.content);
  });

  it("streams its reply as deltas", async () => {
    const events: AssistantMessageEvent[] = [];
    for await (const e of streamSimple(getOfflineModel(), { messages: [user("hi")] }, { reasoning: "high" })) {
      events.push(e);
    }
    expect(events[0]?.type).toBe("start");
    expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(5);
    expect(events.at(-1)?.type).toBe("done");
  });

  it("drives the full tool loop: read README.md → tool call → result summary", async () => {
    writeFileSync(join(dir, "README.md"), "# Demo project\nline two\nline three\n");
    const context: Context = {
      systemPrompt: "You are Tiller.",
      messages: [user("read README.md")],
      tools: CODING_TOOLS,
    };
    const first = await complete(getOfflineModel(), context);
    expect(first.stopReason).toBe("toolUse");
    expect(text(first).startsWith(OFFLINE_LABEL)).toBe(true);
    const call = first.content.find((b) => b.type === "toolCall");
    expect(call).toMatchObject({ type: "toolCall", name: "read", arguments: { path: "README.md" } });
    if (call?.type !== "toolCall") return;

    // Execute the tool for real, as the agent would.
    const output = readFileSync(join(dir, String(call.arguments.path)), "utf8");
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: output }],
      isError: false,
      timestamp: 0,
    };
    context.messages.push(first, result);
    const second = await complete(getOfflineModel(), context);
    expect(second.stopReason).toBe("stop");
    const summary = text(second);
    expect(summary.startsWith(OFFLINE_LABEL)).toBe(true);
    expect(summary).toContain("`read`");
    expect(summary).toContain("# Demo project");
    expect(summary).toContain("line three");
  });

  it("reports a failed tool and shows only the first lines of a long result", async () => {
    const long = Array.from({ length: 50 }, (_, i) => `entry ${i}`).join("\n");
    const base: Context = { messages: [user("list src")], tools: CODING_TOOLS };
    const ok = await complete(getOfflineModel(), {
      ...base,
      messages: [
        ...base.messages,
        {
          role: "toolResult",
          toolCallId: "c",
          toolName: "ls",
          content: [{ type: "text", text: long }],
          isError: false,
          timestamp: 0,
        },
      ],
    });
    expect(text(ok)).toContain("entry 19");
    expect(text(ok)).not.toContain("entry 20");
    expect(text(ok)).toContain("30 more lines");
    const failed = await complete(getOfflineModel(), {
      messages: [
        user("run `false`"),
        {
          role: "toolResult",
          toolCallId: "c",
          toolName: "bash",
          content: [{ type: "text", text: "exit code 1" }],
          isError: true,
          timestamp: 0,
        },
      ],
    });
    expect(text(failed)).toContain("reported an error");
    expect(text(failed)).toContain("exit code 1");
  });

  it("an abort ends the stream with an aborted error", async () => {
    const controller = new AbortController();
    controller.abort();
    const reply = await stream(getOfflineModel(), { messages: [user("hi")] }, { signal: controller.signal }).result();
    expect(reply.stopReason).toBe("aborted");
  });
});

describe("offline request matching", () => {
  it.each([
    ["read README.md", "read", { path: "README.md" }],
    ["please read the file 'docs/guide.md'", "read", { path: "docs/guide.md" }],
    ["cat package.json", "read", { path: "package.json" }],
    ["list src", "ls", { path: "src" }],
    ["ls src/", "ls", { path: "src/" }],
    ["list files", "ls", { path: "." }],
    ["list the files in packages", "ls", { path: "packages" }],
    ["run `ls -la`", "bash", { command: "ls -la" }],
    ["execute ```git status```", "bash", { command: "git status" }],
    ["$ npm test", "bash", { command: "npm test" }],
    ["run npm test", "bash", { command: "npm test" }],
    ["ls -la", "bash", { command: "ls -la" }],
    ["find *.ts", "find", { pattern: "*.ts" }],
    ["find files named *.md in docs", "find", { pattern: "*.md", path: "docs" }],
    ["grep foo", "grep", { pattern: "foo" }],
    ['search for "TODO later" in src', "grep", { pattern: "TODO later", path: "src" }],
  ] as const)("%s → %s", (request, name, args) => {
    expect(matchOfflineTool(request, CODING_TOOLS)).toEqual({ tool: name, arguments: args });
  });

  it("does not turn prose into a tool call", () => {
    for (const request of ["run the tests", "read README.md and summarise it", "explain this code", "hello"]) {
      expect(matchOfflineTool(request, CODING_TOOLS)).toBeUndefined();
    }
  });

  it("uses exec when that is the shell tool, and falls back to the shell for missing tools", () => {
    const tools = [tool("exec", { command: Type.String() })];
    expect(matchOfflineTool("run `ls -la`", tools)).toEqual({ tool: "exec", arguments: { command: "ls -la" } });
    expect(matchOfflineTool("read README.md", tools)).toEqual({
      tool: "exec",
      arguments: { command: "cat README.md" },
    });
    expect(matchOfflineTool("grep 'a b'", tools)).toEqual({ tool: "exec", arguments: { command: "grep -rn 'a b' ." } });
  });

  it("uses the tool's own parameter names", () => {
    const tools = [tool("read", { file_path: Type.String() })];
    expect(matchOfflineTool("read a.txt", tools)).toEqual({ tool: "read", arguments: { file_path: "a.txt" } });
  });

  it("offers no call when the tool is absent and there is no shell", async () => {
    expect(matchOfflineTool("read a.txt", [tool("ls", { path: Type.String() })])).toBeUndefined();
    const reply = await complete(getOfflineModel(), { messages: [user("read a.txt")] });
    expect(reply.stopReason).toBe("stop");
    expect(text(reply)).toContain("No tools are available");
  });
});
