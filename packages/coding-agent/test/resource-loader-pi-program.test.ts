/**
 * A ResourceLoader a pi program writes itself: its `getExtensions()` returns pi's LoadExtensionsResult
 * (extensions, errors, runtime: no runner). A session built over it runs those extensions (their tools and
 * handlers, with the session as context), and only those.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAgentSession,
  discoverAndLoadExtensions,
  type LoadExtensionsResult,
  type ResourceLoader,
  SessionManager,
} from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-pi-loader-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

const TOOL_EXTENSION = (name: string) => `
export default function (pi) {
  pi.registerTool({
    name: "${name}",
    label: "${name}",
    description: "answers with the session's model",
    parameters: { type: "object", properties: {} },
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      return { content: [{ type: "text", text: "${name} via " + ctx.model.id }], details: {} };
    },
  });
  pi.on("turn_end", () => pi.appendEntry("${name}-turn", { seen: true }));
}
`;

/** pi's ResourceLoader shape, written by the program: it keeps only the extensions it wants. */
class ProgramLoader implements ResourceLoader {
  private result: LoadExtensionsResult | undefined;
  constructor(
    private readonly paths: string[],
    private readonly keep: (path: string) => boolean,
  ) {}
  async reload(): Promise<void> {
    const base = await discoverAndLoadExtensions(this.paths, dir, join(dir, "agent"));
    this.result = {
      extensions: base.extensions.filter((e) => this.keep(e.path)),
      errors: base.errors,
      runtime: base.runtime,
    };
  }
  getExtensions(): LoadExtensionsResult {
    if (!this.result) throw new Error("reload first");
    return this.result;
  }
  getSkills() {
    return { skills: [], diagnostics: [] };
  }
  getPrompts() {
    return { prompts: [], diagnostics: [] };
  }
  getThemes() {
    return { themes: [], diagnostics: [] };
  }
  getAgentsFiles() {
    return { agentsFiles: [] };
  }
  getSystemPrompt() {
    return undefined;
  }
  getAppendSystemPrompt() {
    return [];
  }
  extendResources(): void {}
}

describe("a pi program's own ResourceLoader", () => {
  it("runs the extensions it returns, with the session as their context", async () => {
    mkdirSync(join(dir, "ext"));
    writeFileSync(join(dir, "ext", "kept.mjs"), TOOL_EXTENSION("kept"));
    writeFileSync(join(dir, "ext", "dropped.mjs"), TOOL_EXTENSION("dropped"));
    const loader = new ProgramLoader([join(dir, "ext")], (p) => p.endsWith("kept.mjs"));
    await loader.reload();
    expect(loader.getExtensions()).not.toHaveProperty("runner");

    faux.setResponses([fauxAssistantMessage(fauxToolCall("kept", {})), fauxAssistantMessage("done")]);
    const sessionManager = SessionManager.inMemory(dir);
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel(),
      sessionManager,
      resourceLoader: loader,
    });
    expect(session.getAllTools().map((t) => t.name)).toContain("kept");
    expect(session.getAllTools().map((t) => t.name)).not.toContain("dropped");
    await session.prompt("use the tool");

    const toolResult = session.messages.find((m) => m.role === "toolResult");
    expect(toolResult?.content).toEqual([{ type: "text", text: `kept via ${faux.getModel().id}` }]);
    const customTypes = sessionManager
      .getEntries()
      .filter((e) => e.type === "custom")
      .map((e) => (e as { customType: string }).customType);
    expect(customTypes.length).toBeGreaterThan(0);
    expect(new Set(customTypes)).toEqual(new Set(["kept-turn"]));
    // Every reader of the loader's result shares the one runner made for it.
    expect(session.extensionRunner.extensions.map((e) => e.path)).toEqual([join(dir, "ext", "kept.mjs")]);
    expect(loader.getExtensions().runner).toBe(session.extensionRunner);
    session.dispose();
  });
});
