/**
 * AgentSession.exportToHtml: the current branch as one static HTML page — messages in order, tool calls and
 * results, summaries — with every session text escaped; pi's refusals for an in-memory or still-empty session.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import type { AgentTool } from "@tiller/agent";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, Type } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAgentSession, SessionManager, SettingsManager } from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-html-"));
  faux = registerFauxProvider();
});
afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

const lookup: AgentTool = {
  name: "lookup",
  label: "lookup",
  description: "looks things up",
  parameters: Type.Object({ q: Type.String() }),
  execute: async () => ({ content: [{ type: "text", text: "found <b>bold</b>" }], details: {} }),
};

async function session(sm: SessionManager) {
  const { session } = await createAgentSession({
    cwd: dir,
    model: faux.getModel(),
    tools: [lookup],
    sessionManager: sm,
    settingsManager: SettingsManager.inMemory(),
  });
  return session;
}

describe("AgentSession.exportToHtml", () => {
  it("writes the current branch in order, escaped, with tool calls and results", async () => {
    const s = await session(SessionManager.create(dir, join(dir, "sessions")));
    faux.setResponses([
      fauxAssistantMessage("abandoned answer"),
      fauxAssistantMessage([fauxToolCall("lookup", { q: "x & y" })]),
      fauxAssistantMessage('done: "<script>alert(1)</script>"'),
    ]);
    await s.prompt("first try");
    const firstUser = s.sessionManager.getEntries().find((e) => e.type === "message")?.id as string;
    await s.navigateTree(firstUser);
    await s.prompt("<script>alert('x')</script> & look it up");
    s.setSessionName("Export <test>");
    const out = await s.exportToHtml(join(dir, "out.html"));
    expect(out).toBe(join(dir, "out.html"));
    const html = readFileSync(out, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain("<title>Export &lt;test&gt;</title>");
    expect(html).toContain("&lt;script&gt;alert('x')&lt;/script&gt; &amp; look it up");
    expect(html).toContain("found &lt;b&gt;bold&lt;/b&gt;");
    expect(html).toContain("&quot;q&quot;: &quot;x &amp; y&quot;");
    expect(html).not.toContain("first try");
    expect(html).not.toContain("abandoned answer");
    const order = ["User", "Tool call: lookup", "Tool result: lookup", "done: &quot;&lt;script&gt;"].map((t) =>
      html.indexOf(t),
    );
    expect(order.every((i, k) => i >= 0 && (k === 0 || i > (order[k - 1] as number)))).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    s.dispose();
  });

  it("refuses an in-memory session and one with nothing written yet, as pi does", async () => {
    const mem = await session(SessionManager.inMemory(dir));
    const { session: piMem } = await Pi.createAgentSession({
      cwd: dir,
      agentDir: join(dir, "pi-agent"),
      model: faux.getModel() as never,
      noTools: "all",
      sessionManager: Pi.SessionManager.inMemory(dir),
      settingsManager: Pi.SettingsManager.inMemory(),
    });
    const piError = await piMem.exportToHtml().catch((e: Error) => e.message);
    await expect(mem.exportToHtml()).rejects.toThrow(piError as string);
    const fresh = await session(SessionManager.create(dir, join(dir, "sessions2")));
    await expect(fresh.exportToHtml(join(dir, "x.html"))).rejects.toThrow("Nothing to export yet");
    mem.dispose();
    piMem.dispose();
    fresh.dispose();
  });
});
