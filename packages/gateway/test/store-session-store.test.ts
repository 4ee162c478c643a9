/** The SQLite session index and run ledger: create, patch, usage, reset, interrupted-run recovery. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { normalizeSessionKey } from "../src/store/session-keys.js";
import { SessionStore } from "../src/store/session-store.js";

const dirs: string[] = [];
const newHome = () => {
  const d = mkdtempSync(join(tmpdir(), "tiller-store-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("session keys", () => {
  it("normalizes to agent:<id>:<rest>", () => {
    expect(normalizeSessionKey(undefined, "main").key).toBe("agent:main:main");
    expect(normalizeSessionKey("work", "main").key).toBe("agent:main:work");
    expect(normalizeSessionKey("agent:Ops:dm:42", "main")).toEqual({
      key: "agent:ops:dm:42",
      agentId: "ops",
      rest: "dm:42",
    });
    expect(normalizeSessionKey("x", "main", "ops").key).toBe("agent:ops:x");
  });
});

describe("SessionStore", () => {
  it("creates, patches (null clears), counts usage and lists newest first", () => {
    const store = new SessionStore(newHome());
    const a = store.ensure("agent:main:a", "main");
    expect(store.ensure("agent:main:a", "main").sessionId).toBe(a.sessionId);
    store.ensure("agent:main:b", "main");
    expect(store.patch("agent:main:a", { label: "L", queueMode: "collect", queueCap: 3 })).toMatchObject({
      label: "L",
      queueMode: "collect",
      queueCap: 3,
    });
    expect(store.patch("agent:main:a", { label: null })?.label).toBeUndefined();
    store.addUsage("agent:main:a", { input: 10, output: 5, total: 15, context: 15 });
    store.addUsage("agent:main:a", { input: 1, output: 1, total: 2, context: 17 });
    expect(store.get("agent:main:a")).toMatchObject({
      inputTokens: 11,
      outputTokens: 6,
      totalTokens: 17,
      contextTokens: 17,
    });
    expect(store.list()[0]?.key).toBe("agent:main:a");
    expect(store.getBySessionId(a.sessionId)?.key).toBe("agent:main:a");
    expect(store.count()).toBe(2);
    const reset = store.reset("agent:main:a");
    expect(reset?.sessionId).not.toBe(a.sessionId);
    expect(reset?.inputTokens).toBe(0);
    expect(store.delete("agent:main:b")).toBe(true);
    store.close();
  });

  it("persists the run ledger and marks unfinished runs interrupted on reopen", () => {
    const home = newHome();
    const s1 = new SessionStore(home);
    s1.ensure("agent:main:a", "main");
    s1.runAccepted("r-ok", "agent:main:a", 1);
    s1.runStarted("r-ok", "agent:main:a", 2);
    s1.runEnded({
      runId: "r-ok",
      sessionKey: "agent:main:a",
      status: "ok",
      acceptedAt: 1,
      endedAt: 3,
      summary: "completed",
      result: { payloads: [{ text: "hi" }] },
    });
    s1.runAccepted("r-live", "agent:main:a", 4);
    s1.runStarted("r-live", "agent:main:a", 5);
    s1.close();
    const s2 = new SessionStore(home);
    expect(s2.markInterrupted(10).map((r) => r.runId)).toEqual(["r-live"]);
    expect(s2.getRun("r-live")).toMatchObject({ status: "interrupted", startedAt: 5, endedAt: 10 });
    expect(s2.getRun("r-ok")).toMatchObject({ status: "ok", result: { payloads: [{ text: "hi" }] } });
    expect(s2.get("agent:main:a")).toMatchObject({ lastRunId: "r-live", lastRunStatus: "interrupted" });
    s2.close();
  });
});
