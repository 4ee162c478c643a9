import { describe, expect, it } from "vitest";
import { type Tool, type ToolCall, Type, validateToolArguments, validateToolCall } from "../src/index.js";

function call(name: string, args: Record<string, unknown>): ToolCall {
  return { type: "toolCall", id: "call_1", name, arguments: args };
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a throw");
}

const readTool: Tool = {
  name: "read",
  description: "Read a file",
  parameters: Type.Object({
    path: Type.String({ minLength: 1 }),
    offset: Type.Optional(Type.Integer({ minimum: 1 })),
    limit: Type.Optional(Type.Number()),
  }),
};

describe("validateToolArguments with TypeBox schemas", () => {
  it("returns valid arguments unchanged", () => {
    expect(validateToolArguments(readTool, call("read", { path: "a.ts", offset: 3 }))).toEqual({
      path: "a.ts",
      offset: 3,
    });
  });

  it("lists every failing path and message, then the received arguments", () => {
    const tool: Tool = {
      name: "edit",
      description: "",
      parameters: Type.Object({
        path: Type.String(),
        edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() })),
        mode: Type.Union([Type.Literal("replace"), Type.Literal("append")]),
      }),
    };
    const args = { edits: [{ oldText: "a" }, { oldText: 1, newText: "b" }], mode: "delete" };
    const message = errorOf(() => validateToolArguments(tool, call("edit", args)));
    expect(message).toContain('Validation failed for tool "edit"');
    expect(message).toContain("path: Expected required property");
    expect(message).toContain("edits[0].newText: Expected required property");
    expect(message).toContain("mode: Expected union value");
    expect(message).toContain("Received arguments:");
    expect(message).toContain('"oldText": "a"');
    // One line per problem, not one per internal check of the same missing key.
    expect(message.match(/^ {2}- path:/gm)?.length).toBe(1);
  });

  it("coerces numeric strings and boolean strings without mutating the input", () => {
    const tool: Tool = {
      name: "t",
      description: "",
      parameters: Type.Object({
        count: Type.Integer(),
        ratio: Type.Number(),
        force: Type.Boolean(),
        label: Type.String(),
        maybe: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      }),
    };
    const args = { count: "42", ratio: " 0.5 ", force: "TRUE", label: 7, maybe: "3" };
    const frozen = JSON.parse(JSON.stringify(args));
    const result = validateToolArguments(tool, call("t", args));
    expect(result).toEqual({ count: 42, ratio: 0.5, force: true, label: "7", maybe: 3 });
    expect(args).toEqual(frozen);
  });

  it("does not truncate a fractional string into an integer", () => {
    const message = errorOf(() => validateToolArguments(readTool, call("read", { path: "x", offset: "1.5" })));
    expect(message).toContain("offset: Expected integer");
  });

  it("parses arrays and objects the model sent as JSON strings", () => {
    const tool: Tool = {
      name: "t",
      description: "",
      parameters: Type.Object({ paths: Type.Array(Type.String()), opts: Type.Object({ depth: Type.Number() }) }),
    };
    expect(validateToolArguments(tool, call("t", { paths: '["a","b"]', opts: '{"depth":"2"}' }))).toEqual({
      paths: ["a", "b"],
      opts: { depth: 2 },
    });
  });

  it("the result is a private copy", () => {
    const args = { path: "a", extra: { nested: [1] } };
    const result = validateToolArguments(readTool, call("read", args)) as { extra: { nested: number[] } };
    result.extra.nested.push(2);
    expect(args.extra.nested).toEqual([1]);
  });

  it("reports range violations with their path", () => {
    const message = errorOf(() => validateToolArguments(readTool, call("read", { path: "", offset: 0 })));
    expect(message).toMatch(/path: Expected string length greater or equal to 1/);
    expect(message).toMatch(/offset: Expected integer to be greater or equal to 1/);
  });
});

describe("validateToolArguments with plain JSON Schema (MCP, JSON files)", () => {
  const mcpTool: Tool = {
    name: "search",
    description: "",
    parameters: JSON.parse(
      JSON.stringify({
        type: "object",
        properties: {
          query: { type: "string", format: "text-query" },
          limit: { type: "integer", minimum: 1, maximum: 50 },
          kind: { enum: ["code", "docs"] },
          tags: { type: "array", items: { type: "string" } },
          since: { type: ["string", "null"] },
          filter: { $ref: "#/$defs/filter" },
        },
        required: ["query", "kind"],
        additionalProperties: false,
        $defs: { filter: { type: "object", properties: { lang: { type: "string" } }, required: ["lang"] } },
      }),
    ),
  };

  it("accepts and coerces valid arguments", () => {
    expect(
      validateToolArguments(mcpTool, call("search", { query: "x", limit: "10", kind: "code", since: null })),
    ).toEqual({ query: "x", limit: 10, kind: "code", since: null });
  });

  it("reports every violation, including refs and additionalProperties", () => {
    const message = errorOf(() =>
      validateToolArguments(mcpTool, call("search", { limit: 99, kind: "mail", tags: [1, "a"], filter: {}, bogus: 1 })),
    );
    expect(message).toContain("query: Expected required property");
    expect(message).toContain("limit: Expected integer to be less or equal to 50");
    expect(message).toContain("kind: Expected union value");
    expect(message).toContain("filter.lang: Expected required property");
    expect(message).toContain("bogus: Unexpected property");
    // tags[0] is a number, and numbers coerce to strings, so it is not an error.
    expect(message).not.toMatch(/- tags/);
  });

  it("compiles once per schema object and gives the same answer on reuse", () => {
    for (let i = 0; i < 3; i++) {
      expect(validateToolArguments(mcpTool, call("search", { query: "q", kind: "docs" }))).toEqual({
        query: "q",
        kind: "docs",
      });
    }
  });
});

describe("validateToolCall", () => {
  it("finds the tool by name and validates", () => {
    expect(validateToolCall([readTool], call("read", { path: "a" }))).toEqual({ path: "a" });
  });

  it("throws a clear error for an unknown tool", () => {
    expect(() => validateToolCall([readTool], call("write", {}))).toThrow('Tool "write" not found');
  });
});

describe("validateToolArguments on TypeBox 1.x", () => {
  it("names what each union branch wanted", () => {
    const tool: Tool = {
      name: "t",
      description: "",
      parameters: Type.Object({ mode: Type.Union([Type.Literal("replace"), Type.Literal("append")]) }),
    };
    const message = errorOf(() => validateToolArguments(tool, call("t", { mode: "delete" })));
    expect(message).toContain("mode: Expected union value (Expected 'replace'; Expected 'append')");
  });

  it("checks Type.Unsafe enums (StringEnum) and reports the allowed values", () => {
    const tool: Tool = {
      name: "t",
      description: "",
      parameters: Type.Object({ op: Type.Unsafe<string>({ type: "string", enum: ["add", "sub"] }) }),
    };
    expect(validateToolArguments(tool, call("t", { op: "add" }))).toEqual({ op: "add" });
    const message = errorOf(() => validateToolArguments(tool, call("t", { op: "mul" })));
    expect(message).toContain("op: Expected union value (Expected 'add'; Expected 'sub')");
  });

  it("reports each missing property and each unexpected one on its own line", () => {
    const tool: Tool = {
      name: "t",
      description: "",
      parameters: Type.Object({ a: Type.String(), b: Type.Number() }, { additionalProperties: false }),
    };
    const message = errorOf(() => validateToolArguments(tool, call("t", { x: 1, y: 2 })));
    for (const line of ["a: Expected required property", "b: Expected required property", "x: Unexpected property"]) {
      expect(message.match(new RegExp(`^ {2}- ${line}$`, "gm"))?.length).toBe(1);
    }
    expect(message).toContain("y: Unexpected property");
  });

  it("treats a TypeBox schema that went through JSON as plain JSON Schema and still coerces it", () => {
    const plain = JSON.parse(JSON.stringify(Type.Object({ n: Type.Integer(), s: Type.Optional(Type.String()) })));
    const tool: Tool = { name: "t", description: "", parameters: plain };
    expect(validateToolArguments(tool, call("t", { n: "7" }))).toEqual({ n: 7 });
    expect(errorOf(() => validateToolArguments(tool, call("t", { s: 1 })))).toContain("n: Expected required property");
  });
});
