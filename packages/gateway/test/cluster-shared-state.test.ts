/**
 * State every node shares: the session index (patches and token counters from several nodes at once), auth-
 * profile cooldowns (a failure seen on one node puts the key in cooldown on all; concurrent failures all
 * count), and transcripts (append-only v3 entries; the export is a JSONL file the coding agent opens).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type SessionEntry, SessionManager } from "@tiller/coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClusterNode } from "../src/cluster/index.js";
import { COOLDOWN_STEPS_MS } from "../src/resilience/cooldown-policy.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

describe.skipIf(PG_MISSING)("cluster shared state", () => {
  let pg: TestPostgres;
  let nodes: ClusterNode[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase();
    nodes = await Promise.all(["x", "y", "z"].map((id) => ClusterNode.start({ url, nodeId: `state-${id}` })));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await pg?.stop();
  });
  const node = (i: number): ClusterNode => nodes[i] as ClusterNode;

  it("session index: one row per key, patches and usage from every node", async () => {
    const created = await Promise.all(nodes.map((n) => n.sessions.ensure("agent:main:shared", "main")));
    expect(new Set(created.map((e) => e.sessionId)).size).toBe(1);
    await node(1).sessions.patch("agent:main:shared", { label: "team", queueMode: "collect", queueDebounceMs: 800 });
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        node(i % 3).sessions.addUsage("agent:main:shared", { input: 10, output: 5, total: 15, context: 100 }),
      ),
    );
    const seen = await node(2).sessions.get("agent:main:shared");
    expect(seen).toMatchObject({
      label: "team",
      queueMode: "collect",
      queueDebounceMs: 800,
      inputTokens: 300,
      totalTokens: 450,
    });
    const cleared = await node(0).sessions.patch("agent:main:shared", { label: null });
    expect(cleared?.label).toBeUndefined();
    const reset = await node(0).sessions.reset("agent:main:shared");
    expect(reset?.sessionId).not.toBe(seen?.sessionId);
    expect(reset?.inputTokens).toBe(0);
    expect((await node(1).sessions.list(10)).map((e) => e.key)).toContain("agent:main:shared");
    await node(0).submit({ runId: "busy", sessionKey: "agent:main:shared", agentId: "main", message: "hi" });
    await expect(node(1).sessions.delete("agent:main:shared")).rejects.toThrow(/queued or running run/);
    await node(2).abort("busy");
    expect(await node(1).sessions.delete("agent:main:shared")).toBe(true);
    expect(await node(0).sessions.get("agent:main:shared")).toBeUndefined();
  });

  it("auth cooldowns: concurrent failures on three nodes climb the ladder three steps; a success clears it", async () => {
    const before = Date.now();
    const untils = await Promise.all(nodes.map((n) => n.authUsage.markFailure("openai:work", "rate_limit")));
    const usage = await node(0).authUsage.usage("openai:work");
    expect(usage.errorCount).toBe(3);
    expect(Math.max(...untils) - before).toBeGreaterThanOrEqual(COOLDOWN_STEPS_MS[2]);
    expect(await node(1).authUsage.unavailableUntil("openai:work")).toBe(Math.max(...untils));
    await node(2).authUsage.markSuccess("openai:work", "agent:main:s1");
    expect(await node(0).authUsage.unavailableUntil("openai:work")).toBeUndefined();
    expect((await node(1).authUsage.usage("openai:work")).errorCount).toBe(0);
    expect(await node(0).authUsage.sessionProfile("agent:main:s1")).toBe("openai:work");
    // Billing disables for hours, on every node.
    await node(0).authUsage.markFailure("anthropic:main", "billing");
    expect(((await node(2).authUsage.unavailableUntil("anthropic:main")) ?? 0) - Date.now()).toBeGreaterThan(
      4 * 3600_000,
    );
  });

  it("transcripts: entries appended on different nodes export as a JSONL file SessionManager opens", async () => {
    const header = {
      type: "session" as const,
      version: 3,
      id: "0190a0b0-0000-7000-8000-000000000001",
      timestamp: new Date().toISOString(),
      cwd: "/work",
    };
    await node(0).transcripts.create(header, "agent:main:t");
    await node(1).transcripts.create({ ...header, cwd: "/elsewhere" }); // a second create keeps the first header
    const ts = new Date().toISOString();
    const entries: SessionEntry[] = [
      {
        type: "message",
        id: "e0000001",
        parentId: null,
        timestamp: ts,
        message: { role: "user", content: "hello", timestamp: 1 },
      },
      { type: "thinking_level_change", id: "e0000002", parentId: "e0000001", timestamp: ts, thinkingLevel: "low" },
      {
        type: "custom",
        id: "e0000003",
        parentId: "e0000002",
        timestamp: ts,
        customType: "big",
        data: { blob: "y".repeat(20_000) },
      },
    ];
    await node(1).transcripts.append(header.id, entries.slice(0, 2));
    await node(2).transcripts.append(header.id, entries.slice(2));
    await node(2).transcripts.append(header.id, entries.slice(2)); // a retried append adds nothing twice
    await expect(node(0).transcripts.append("no-such-session", entries)).rejects.toThrow(/does not exist/);
    const dir = mkdtempSync(join(tmpdir(), "tiller-cluster-transcript-"));
    try {
      const file = join(dir, "t.jsonl");
      expect(await node(0).transcripts.exportJsonl(header.id, file)).toBe(3);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const lines = readFileSync(file, "utf8")
        .trimEnd()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines[0]).toEqual(header);
      expect(lines.slice(1)).toEqual(entries);
      const sm = SessionManager.open(file);
      expect(sm.getSessionId()).toBe(header.id);
      expect(sm.getLeafId()).toBe("e0000003");
      expect(sm.buildSessionContext().thinkingLevel).toBe("low");
      sm.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
