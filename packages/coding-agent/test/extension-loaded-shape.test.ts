/**
 * A loaded extension has pi's `Extension` shape: what a host reads back from `discoverAndLoadExtensions` (its
 * handlers, registered tools and commands with their sources, flags, shortcuts, message renderers) is laid out
 * as pi's loader lays it out, for the same extension file.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as tiller from "../src/index.js";

let dir: string;
let file: string;

const EXTENSION = `
export default function (pi) {
  pi.on("session_start", () => {});
  pi.on("session_start", () => {});
  pi.on("turn_end", () => {});
  const tool = (name, text) => ({
    name, label: name, description: "d", parameters: { type: "object", properties: {} },
    async execute() { return { content: [{ type: "text", text }], details: {} }; },
  });
  pi.registerTool(tool("first", "1"));
  pi.registerTool(tool("second", "2"));
  pi.registerTool(tool("first", "again"));
  pi.registerCommand("hello", { description: "says hello", handler: () => {} });
  pi.registerFlag("loud", { type: "boolean", description: "louder" });
  pi.registerShortcut("ctrl+shift+h", { description: "help", handler: () => {} });
  pi.registerMessageRenderer("note", () => undefined);
}
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-ext-shape-"));
  file = join(dir, "shape.mjs");
  writeFileSync(file, EXTENSION);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The parts of a loaded extension a host reads, as plain data. */
function shape(e: tiller.Extension | pi.Extension) {
  return {
    path: e.path,
    resolvedPath: e.resolvedPath,
    sourceInfo: e.sourceInfo,
    handlers: [...e.handlers].map(([event, list]) => [event, list.length]),
    tools: [...e.tools].map(([name, t]) => [name, t.definition.name, t.sourceInfo.path]),
    commands: [...e.commands].map(([name, c]) => [name, c.name, c.description, c.sourceInfo.path]),
    flags: [...e.flags].map(([name, f]) => [name, f.type, f.description]),
    shortcuts: [...e.shortcuts].map(([key, s]) => [key, s.description]),
    renderers: [...e.messageRenderers.keys()],
  };
}

describe("a loaded extension (pi's Extension)", () => {
  it("lays out what the extension registered as pi's loader does", async () => {
    const ours = await tiller.discoverAndLoadExtensions([file], dir, join(dir, "agent"));
    const theirs = await pi.discoverAndLoadExtensions([file], dir, join(dir, "agent"));
    expect(ours.errors).toEqual([]);
    expect(theirs.errors).toEqual([]);
    const [a] = ours.extensions;
    const [b] = theirs.extensions;
    if (!a || !b) throw new Error("the extension did not load");
    const got = shape(a);
    expect(got).toMatchObject({
      path: file,
      handlers: [
        ["session_start", 2],
        ["turn_end", 1],
      ],
      commands: [["hello", "hello", "says hello", file]],
      flags: [["loud", "boolean", "louder"]],
      shortcuts: [["ctrl+shift+h", "help"]],
      renderers: ["note"],
    });
    const { sourceInfo: ourSource, tools: ourTools, ...ourRest } = got;
    const { sourceInfo: theirSource, tools: theirTools, ...theirRest } = shape(b);
    expect(ourRest).toEqual(theirRest);
    expect(ourSource.path).toBe(theirSource.path);
    // A re-registered tool replaces the earlier one (Tiller moves it last, as a later registration).
    expect(new Set(ourTools)).toEqual(new Set(theirTools));
    expect(ourTools.map((t) => t[0])).toEqual(["second", "first"]);
  });

  it("keeps the last registration of a tool name, and the runner runs it with its context", async () => {
    const loaded = await tiller.discoverAndLoadExtensions([file], dir, join(dir, "agent"));
    const runner = tiller.extensionRunnerOf(loaded);
    const first = runner.getTools().find((t) => t.name === "first");
    const result = await first?.execute("call-1", {}, undefined, undefined);
    expect(result?.content).toEqual([{ type: "text", text: "again" }]);
    // The same AgentTool every time (hosts compare tools by identity).
    expect(runner.getTools().find((t) => t.name === "first")).toBe(first);
  });
});
