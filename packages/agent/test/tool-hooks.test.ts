import { Type } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { Agent, type AgentOptions, type AgentTool } from "../src/index.js";
import { model, scripted, textOf } from "./helpers/scripted.js";

const pathParams = Type.Object({ path: Type.String({ minLength: 1 }) });

function setup(hooks: Pick<AgentOptions, "beforeToolCall" | "afterToolCall">, args: Record<string, unknown>) {
  const executed: string[] = [];
  const tool: AgentTool<typeof pathParams> = {
    name: "read_file",
    label: "Read",
    description: "",
    parameters: pathParams,
    execute: async (_id, { path }) => {
      executed.push(path);
      return { content: [{ type: "text", text: `secret token in ${path}` }], details: { path } };
    },
  };
  const { streamFn, calls } = scripted([{ blocks: [{ call: "read_file", args }] }, { blocks: [{ text: "ok" }] }]);
  const agent = new Agent({ initialState: { model, tools: [tool] }, streamFn, ...hooks });
  const result = () => agent.state.messages.find((m) => m.role === "toolResult");
  return { agent, executed, calls, result };
}

describe("beforeToolCall", () => {
  it("{block: true, reason} turns the call into an error result with that reason; the tool does not run", async () => {
    const t = setup(
      {
        beforeToolCall: async ({ toolCall }) =>
          toolCall.name === "read_file" ? { block: true, reason: "no" } : undefined,
      },
      { path: "/etc/passwd" },
    );
    await t.agent.prompt("go");
    expect(t.executed).toEqual([]);
    expect(t.result()).toMatchObject({ isError: true });
    expect(textOf(t.result())).toBe("no");
    expect(t.calls).toHaveLength(2);
  });

  it("{args} replaces the arguments, which are validated again", async () => {
    const ok = setup(
      { beforeToolCall: async ({ args }) => ({ args: { ...(args as object), path: "safe.txt" } }) },
      { path: "../x" },
    );
    await ok.agent.prompt("go");
    expect(ok.executed).toEqual(["safe.txt"]);

    const bad = setup({ beforeToolCall: async () => ({ args: { path: "" } }) }, { path: "x" });
    await bad.agent.prompt("go");
    expect(bad.executed).toEqual([]);
    expect(bad.result()?.isError).toBe(true);
    expect(textOf(bad.result())).toMatch(/Validation failed/);
  });

  it("arguments mutated in place are executed as mutated (pi-agent-core compatibility)", async () => {
    const t = setup(
      {
        beforeToolCall: async ({ args }) => {
          (args as { path: string }).path = "mutated.txt";
          return undefined;
        },
      },
      { path: "orig.txt" },
    );
    await t.agent.prompt("go");
    expect(t.executed).toEqual(["mutated.txt"]);
  });

  it("a hook that throws yields an error result and the loop goes on", async () => {
    const t = setup(
      {
        beforeToolCall: async () => {
          throw new Error("audit log down");
        },
      },
      { path: "a" },
    );
    await t.agent.prompt("go");
    expect(t.executed).toEqual([]);
    expect(textOf(t.result())).toBe("audit log down");
    expect(t.calls).toHaveLength(2);
    expect(textOf(t.agent.state.messages.at(-1))).toBe("ok");
  });

  it("receives the validated arguments, the tool call, the context and the run's signal", async () => {
    let seen: unknown;
    const t = setup(
      {
        beforeToolCall: async (ctx, signal) => {
          seen = { name: ctx.toolCall.name, args: ctx.args, roles: ctx.context.messages.map((m) => m.role), signal };
          return undefined;
        },
      },
      { path: "a" },
    );
    await t.agent.prompt("go");
    expect(seen).toMatchObject({ name: "read_file", args: { path: "a" }, roles: ["user", "assistant"] });
    expect((seen as { signal: unknown }).signal).toBeInstanceOf(AbortSignal);
  });
});

describe("afterToolCall", () => {
  it("may replace content, details and isError", async () => {
    const t = setup(
      {
        afterToolCall: async ({ result }) => ({
          content: [
            {
              type: "text",
              text: textOf({ role: "user", content: result.content, timestamp: 0 }).replace("secret token", "[masked]"),
            },
          ],
          details: { masked: true },
          isError: true,
        }),
      },
      { path: "a" },
    );
    await t.agent.prompt("go");
    expect(t.result()).toMatchObject({ isError: true, details: { masked: true } });
    expect(textOf(t.result())).toBe("[masked] in a");
  });

  it("accepts the seed's {result} replacement", async () => {
    const t = setup(
      {
        afterToolCall: async ({ result }) => ({ result: { ...result, content: [{ type: "text", text: "masked" }] } }),
      },
      { path: "a" },
    );
    await t.agent.prompt("go");
    expect(t.result()).toMatchObject({ isError: false, details: { path: "a" } });
    expect(textOf(t.result())).toBe("masked");
  });

  it("sees the executed result and error flag; returning nothing keeps them", async () => {
    let seen: unknown;
    const t = setup(
      {
        afterToolCall: async ({ result, isError, args }) => {
          seen = { text: result.content[0], isError, args };
          return undefined;
        },
      },
      { path: "a" },
    );
    await t.agent.prompt("go");
    expect(seen).toEqual({ text: { type: "text", text: "secret token in a" }, isError: false, args: { path: "a" } });
    expect(textOf(t.result())).toBe("secret token in a");
  });

  it("a hook that throws yields an error result and the loop goes on", async () => {
    const t = setup(
      {
        afterToolCall: async () => {
          throw new Error("cache full");
        },
      },
      { path: "a" },
    );
    await t.agent.prompt("go");
    expect(t.executed).toEqual(["a"]);
    expect(t.result()?.isError).toBe(true);
    expect(textOf(t.result())).toBe("cache full");
    expect(t.calls).toHaveLength(2);
  });
});
