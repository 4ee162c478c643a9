/**
 * pi's extension events Tiller's session dispatches itself, run side by side with pi's session on the same
 * extension and the same scripted model: `turn_start` / `turn_end` carry pi's `turnIndex` (and the start its
 * `timestamp`), a `message_end` handler replaces the message everywhere (agent state, listeners, session file;
 * a replacement of another role is refused), and `resources_discover` adds skill folders at startup (a
 * relative one is the session cwd's, as in pi).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as PiAi from "@mariozechner/pi-ai";
import * as Pi from "@mariozechner/pi-coding-agent";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentSessionFromServices, createAgentSessionServices, SessionManager } from "../src/index.js";

const g = globalThis as { __turnLog?: string[] };
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-turn-events-"));
  g.__turnLog = [];
});
afterEach(() => {
  delete g.__turnLog;
  for (const k of ["__turnCwd", "__turnSkills"]) delete (globalThis as Record<string, unknown>)[k];
  rmSync(dir, { recursive: true, force: true });
});

const EXTENSION = `export default function (api) {
  const log = (s) => globalThis.__turnLog.push(s);
  api.registerTool({ name: "probe", label: "probe", description: "probes", parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: "probed" }], details: undefined }) });
  api.on("turn_start", (e) => log("start:" + e.turnIndex + ":" + (typeof e.timestamp === "number" && e.timestamp > 0)));
  api.on("turn_end", (e) => log("end:" + e.turnIndex + ":" + e.message.role));
  api.on("message_end", (e) => {
    if (e.message.role === "user") return { message: { role: "assistant", content: [] } };
    if (e.message.role !== "assistant") return;
    const text = e.message.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    if (!text.includes("secret")) return;
    return { message: { ...e.message, content: [{ type: "text", text: text.replace("secret", "[redacted]") }] } };
  });
  api.on("resources_discover", (e) => {
    log("discover:" + e.reason + ":" + (e.cwd === globalThis.__turnCwd));
    return { skillPaths: [globalThis.__turnSkills, "no-such-folder"] };
  });
}\n`;

const SKILL = "---\nname: found-skill\ndescription: a skill an extension pointed at\n---\nDo the found thing.\n";

function layout() {
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "proj");
  mkdirSync(join(agentDir, "extensions", "skills", "found-skill"), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(agentDir, "extensions", "turns.ts"), EXTENSION);
  writeFileSync(join(agentDir, "extensions", "skills", "found-skill", "SKILL.md"), SKILL);
  Object.assign(globalThis, { __turnCwd: cwd, __turnSkills: join(agentDir, "extensions", "skills") });
  return { agentDir, cwd };
}

/** What both sessions show after the scripted run. */
interface Seen {
  log: string[];
  assistantTexts: string[];
  storedTexts: string[];
  skills: string[];
  promptHasSkill: boolean;
  errors: string[];
}

const textOf = (m: { role: string; content?: unknown }) =>
  Array.isArray(m.content) ? m.content.map((b: { type: string; text?: string }) => b.text ?? "").join("") : "";

describe("turn, message_end and resources_discover events", () => {
  it("match pi's session", async () => {
    // Tiller's session on Tiller's scripted provider.
    const { agentDir, cwd } = layout();
    const faux = registerFauxProvider();
    faux.setResponses([fauxAssistantMessage(fauxToolCall("probe", {})), fauxAssistantMessage("the secret is out")]);
    let ours: Seen;
    try {
      const services = await createAgentSessionServices({ cwd, agentDir });
      const sm = SessionManager.inMemory(cwd);
      const { session } = await createAgentSessionFromServices({
        services,
        sessionManager: sm,
        model: faux.getModel(),
      });
      const errors: string[] = [];
      await session.bindExtensions({ onError: (e) => errors.push(`${e.event}:${e.error}`) });
      const heard: string[] = [];
      session.subscribe((e) => {
        if (e.type === "message_end" && e.message.role === "assistant") heard.push(textOf(e.message));
      });
      await session.prompt("go");
      ours = {
        log: [...(g.__turnLog ?? [])],
        assistantTexts: session.messages.filter((m) => m.role === "assistant").map(textOf),
        storedTexts: sm
          .getEntries()
          .flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [textOf(e.message)] : [])),
        skills: session.resourceLoader?.getSkills().skills.map((s) => s.name) ?? [],
        promptHasSkill: session.systemPrompt.includes("found-skill"),
        errors,
      };
      expect(heard).toEqual(ours.assistantTexts);
      session.dispose();
    } finally {
      faux.unregister();
    }

    // pi's session on pi's scripted provider, same extension and script.
    rmSync(dir, { recursive: true, force: true });
    g.__turnLog = [];
    const again = layout();
    const piFaux = PiAi.registerFauxProvider();
    piFaux.setResponses([
      PiAi.fauxAssistantMessage(PiAi.fauxToolCall("probe", {})),
      PiAi.fauxAssistantMessage("the secret is out"),
    ]);
    let pi: Seen;
    try {
      const services = await Pi.createAgentSessionServices({ cwd: again.cwd, agentDir: again.agentDir });
      services.authStorage.setRuntimeApiKey(piFaux.getModel().provider, "faux-key");
      const sm = Pi.SessionManager.inMemory(again.cwd);
      const { session } = await Pi.createAgentSessionFromServices({
        services,
        sessionManager: sm,
        model: piFaux.getModel(),
      });
      const errors: string[] = [];
      await session.bindExtensions({ onError: (e) => errors.push(`${e.event}:${e.error}`) });
      await session.prompt("go");
      pi = {
        log: [...(g.__turnLog ?? [])],
        assistantTexts: session.messages.filter((m) => m.role === "assistant").map(textOf),
        storedTexts: sm
          .getEntries()
          .flatMap((e) => (e.type === "message" && e.message.role === "assistant" ? [textOf(e.message)] : [])),
        skills: session.resourceLoader.getSkills().skills.map((s) => s.name),
        promptHasSkill: session.systemPrompt.includes("found-skill"),
        errors,
      };
      session.dispose();
    } finally {
      piFaux.unregister();
    }

    expect(ours.log).toEqual([
      "discover:startup:true",
      "start:0:true",
      "end:0:assistant",
      "start:1:true",
      "end:1:assistant",
    ]);
    expect(ours.assistantTexts).toEqual(["", "the [redacted] is out"]);
    expect(ours.storedTexts).toEqual(ours.assistantTexts);
    expect(ours.skills).toContain("found-skill");
    expect(ours.promptHasSkill).toBe(true);
    expect(ours.errors).toEqual(["message_end:message_end handlers must return a message with the same role"]);
    expect(pi).toEqual(ours);
  });
});
