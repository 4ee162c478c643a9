// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads and transcript entries are inspected structurally.
/**
 * Approvals in a cluster of two real gateway processes on one PostgreSQL, with real WebSocket clients. Node
 * gw-a has a main-lane cap of 1, so while one run of the cluster waits (a "holder"), every other run executes
 * on gw-b: the approver can be put on the other node than the run. Shown: with no approver on any node the
 * policy's askFallback decides; an approver on gw-a only makes a run on gw-b ask; the request is announced to
 * it, listed, read and decided from gw-a (RPC and /approve), and the run finishes on gw-b with the tool result
 * once in the shared transcript; two approvers on two nodes deciding at once: one wins, the other is told who
 * did; plugin approvals (and their timeout) likewise; gw-b SIGKILLed while its run waits: the run ends
 * interrupted, the approval is resolved (denied, aborted, naming the node) on every remaining node, and nothing
 * is left pending; a decision committed just as the executing node's timeout fires: the run, the record and the
 * events all show the decision (the timeout lost in the database); a request decided before a node read it is
 * still announced there before its end; gw-b restarted and stopped gracefully while its run waits: the wait ends aborted, on record.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import type { GatewayClient } from "../src/cli/gateway-client.js";
import { LOCK_APPROVALS, LOCK_NAMESPACE } from "../src/cluster/advisory-locks.js";
import { CHANNEL_APPROVALS } from "../src/cluster/listener.js";
import type { EventFrame } from "../src/protocol/frames.js";
import { connectClient, startMockProvider, until } from "./gateway-harness.js";
import { until as untilValue } from "./helpers/cluster.js";
import { type ClusterGatewayNode, clusterHome, dbClient, startNode, stopNodes } from "./helpers/cluster-gateways.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

const APPROVER = ["operator.read", "operator.write", "operator.approvals"];
const WRITER = ["operator.read", "operator.write"];
const POLICY = { security: "allowlist", ask: "on-miss", askFallback: "deny" };
/** A plugin asking before reading "gated" paths (the decisions it offers), and briefly (timeout: allow) for "brief". */
const GATE_PLUGIN = `export default { id: "gate", register(api) {
  api.on("before_tool_call", (e) => {
    const path = String(e.params.path ?? "");
    if (e.toolName === "read" && path.includes("gated")) return { requireApproval: { title: "Read a gated file?", description: path, severity: "critical", allowedDecisions: ["allow-once", "deny"] } };
    if (e.toolName === "read" && path.includes("brief")) return { requireApproval: { title: "Quick read", timeoutMs: 300, timeoutBehavior: "allow" } };
    if (e.toolName === "read" && path.includes("narrow")) return { requireApproval: { title: "Narrow read", timeoutMs: 300, timeoutBehavior: "allow", allowedDecisions: ["deny"] } };
    if (e.toolName === "read" && path.includes("edge")) return { requireApproval: { title: "Read at the edge", timeoutMs: 4000, timeoutBehavior: "allow" } };
    return undefined;
  });
} };
`;

const payloads = (events: EventFrame[], name: string): any[] =>
  events.filter((e) => e.event === name).map((e) => e.payload);

/** Waits for the `exec.approval.requested` of command `cmd` among `events`. */
async function requestFor(events: EventFrame[], cmd: string): Promise<any> {
  await until(
    () => payloads(events, "exec.approval.requested").some((p) => p.request.command === cmd),
    30_000,
    `exec.approval.requested for ${cmd}`,
  );
  return payloads(events, "exec.approval.requested").find((p) => p.request.command === cmd);
}

async function resolvedFor(events: EventFrame[], id: string): Promise<any> {
  await until(
    () => payloads(events, "exec.approval.resolved").some((p) => p.id === id),
    30_000,
    `exec.approval.resolved for ${id}`,
  );
  return payloads(events, "exec.approval.resolved").filter((p) => p.id === id);
}

const replyText = (end: any): string => (end?.result?.payloads ?? []).map((p: any) => p.text).join("");

describe.skipIf(PG_MISSING)("cluster: approvals shared by the gateways", () => {
  let pgs: TestPostgres;
  let mock: MockServer;
  let nodes: ClusterGatewayNode[] = [];
  let db: Awaited<ReturnType<typeof dbClient>>;
  /** One approver client per node, once connected. */
  const approvers = new Map<string, { client: GatewayClient; events: EventFrame[] }>();

  beforeAll(async () => {
    pgs = await startPostgres();
    const url = await pgs.createDatabase();
    mock = await startMockProvider();
    const tools = { tools: { enabled: true } };
    const homes = [
      clusterHome(url, mock, "gw-a", { ...tools, agents: { defaults: { maxConcurrent: 1 } } }),
      clusterHome(url, mock, "gw-b", tools),
    ];
    for (const h of homes) {
      writeFileSync(join(h, "exec-approvals.json"), JSON.stringify(POLICY), { mode: 0o600 });
      mkdirSync(join(h, "plugins"), { recursive: true });
      writeFileSync(join(h, "plugins", "gate.mjs"), GATE_PLUGIN);
    }
    // Every node's own client may write but not decide: no approver anywhere until a test connects one.
    nodes = await Promise.all(["gw-a", "gw-b"].map((n, i) => startNode(n, homes[i] as string, WRITER)));
    db = await dbClient(url);
  }, 180_000);

  afterAll(async () => {
    for (const c of approvers.values()) await c.client.close().catch(() => {});
    await db?.end();
    await stopNodes(nodes);
    await mock?.close();
    await pgs?.stop();
  });

  const a = (): ClusterGatewayNode => nodes[0] as ClusterGatewayNode;
  const b = (): ClusterGatewayNode => nodes[1] as ClusterGatewayNode;

  async function approverOn(node: ClusterGatewayNode): Promise<{ client: GatewayClient; events: EventFrame[] }> {
    const known = approvers.get(node.name);
    if (known) return known;
    const c = await connectClient(node.gw.url, { scopes: APPROVER });
    approvers.set(node.name, c);
    // The node has published its approver before a run anywhere counts on it.
    await untilValue("the approver's presence in the cluster", async () => {
      const { rows } = await db.query("SELECT 1 FROM cluster_approvers WHERE node_id = $1 AND present", [node.name]);
      return rows.length > 0 ? true : undefined;
    });
    return c;
  }

  /** Sends `[tool:exec:cmd]` as a new run through `via`'s client; resolves with its final answer. */
  function execRun(via: ClusterGatewayNode, cmd: string, sessionKey: string, runId = randomUUID()) {
    return {
      runId,
      final: via.client.request(
        "agent",
        { message: `[tool:exec:${cmd}]`, idempotencyKey: runId, sessionKey },
        { expectFinal: true },
      ) as Promise<any>,
    };
  }

  const executingNode = (runId: string): Promise<string> =>
    untilValue(`run ${runId} to be claimed`, async () => {
      const { rows } = await db.query("SELECT node_id FROM cluster_runs WHERE run_id = $1 AND node_id IS NOT NULL", [
        runId,
      ]);
      return (rows[0]?.node_id as string | undefined) ?? undefined;
    });

  it("no operator.approvals client on any node: askFallback decides at once", async () => {
    const { final } = execRun(a(), "echo nobody-anywhere", "ca-nobody");
    const end = await final;
    expect(end.status).toBe("ok");
    expect(replyText(end)).toMatch(/nobody can be asked here \(askFallback: deny\)/);
    const { rows } = await db.query("SELECT 1 FROM cluster_approvals");
    expect(rows).toHaveLength(0);
  }, 60_000);

  it("asked on gw-b, announced to and decided from gw-a (RPC and /approve); the run finishes on gw-b", async () => {
    const approver = await approverOn(a());
    // The holder waits for a decision, so gw-a (cap 1) claims nothing more: the next run executes on gw-b.
    const holdCmd = `echo hold-${randomUUID().slice(0, 8)}`;
    const holder = execRun(b(), holdCmd, "ca-holder");
    const held = await requestFor(approver.events, holdCmd);
    const word = `work-${randomUUID().slice(0, 8)}`;
    const run = execRun(b(), `echo ${word}`, "ca-work");
    const req = await requestFor(approver.events, `echo ${word}`);
    expect(await executingNode(run.runId)).toBe("gw-b");
    expect(req.request).toMatchObject({ sessionKey: "agent:main:ca-work", runId: run.runId, toolName: "exec" });
    // Only approvers hear of it: gw-b's own client holds no operator.approvals.
    expect(payloads(b().events, "exec.approval.requested")).toEqual([]);

    const list: any = await approver.client.request("exec.approval.list", {});
    expect(list.approvals.map((x: any) => x.id).sort()).toEqual([held.id, req.id].sort());
    const mine: any = await approver.client.request("exec.approval.list", { sessionKey: "ca-work" });
    expect(mine.approvals).toEqual([expect.objectContaining({ id: req.id, request: req.request })]);
    const got: any = await approver.client.request("exec.approval.get", { id: req.id });
    expect(got.request.command).toBe(`echo ${word}`);

    const ok: any = await approver.client.request("exec.approval.resolve", { id: req.id, decision: "allow-once" });
    expect(ok).toMatchObject({ ok: true, id: req.id, decision: "allow-once" });
    const end = await run.final;
    expect(end.status).toBe("ok");
    expect(replyText(end)).toContain(`done: ${word}`);
    const [resolved, ...again] = await resolvedFor(approver.events, req.id);
    expect(again).toEqual([]);
    expect(resolved).toMatchObject({ decision: "allow-once", cause: "decided" });
    const { rows: ledgerRows } = await db.query("SELECT status, node_id FROM cluster_runs WHERE run_id = $1", [
      run.runId,
    ]);
    expect(ledgerRows[0]).toMatchObject({ status: "ok", node_id: "gw-b" });
    // The shared transcript has the command's result exactly once.
    const { rows: entries } = await db.query(
      `SELECT e.entry FROM cluster_transcript_entries e JOIN cluster_sessions s ON s.session_id = e.session_id
       WHERE s.key = 'agent:main:ca-work' ORDER BY e.pos`,
    );
    const results = entries.map((r) => r.entry).filter((e: any) => e.message?.role === "toolResult");
    expect(results).toHaveLength(1);
    expect(results[0].message).toMatchObject({ toolName: "exec", isError: false });
    expect(JSON.stringify(results[0].message.content)).toContain(word);

    // /approve typed in chat on gw-a decides the holder, which runs on either node.
    const typed: any = await approver.client.request(
      "agent",
      { message: `/approve ${held.id} deny not now`, idempotencyKey: randomUUID(), sessionKey: "ca-ops" },
      { expectFinal: true },
    );
    expect(typed.result.payloads[0].text).toBe(`Approval ${held.id}: deny.`);
    const holderEnd = await holder.final;
    expect(replyText(holderEnd)).toContain("Denied: the user did not allow running");
    expect(replyText(holderEnd)).toContain("not now");
    expect((await approver.client.request("exec.approval.list", {})) as any).toEqual({ approvals: [] });
  }, 120_000);

  it("two approvers on two nodes decide at once: the first decision wins, the other is told who decided", async () => {
    const [onA, onB] = [await approverOn(a()), await approverOn(b())];
    const word = `race-${randomUUID().slice(0, 8)}`;
    const run = execRun(a(), `echo ${word}`, "ca-race");
    const [reqA, reqB] = await Promise.all([
      requestFor(onA.events, `echo ${word}`),
      requestFor(onB.events, `echo ${word}`),
    ]);
    expect(reqB.id).toBe(reqA.id);
    const answers = await Promise.allSettled([
      onA.client.request("exec.approval.resolve", { id: reqA.id, decision: "allow-once" }),
      onB.client.request("exec.approval.resolve", { id: reqA.id, decision: "deny" }),
    ]);
    const won = answers.filter((x) => x.status === "fulfilled");
    const lost = answers.filter((x): x is PromiseRejectedResult => x.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const winner = answers[0]?.status === "fulfilled" ? "allow-once" : "deny";
    expect(String(lost[0]?.reason?.message)).toMatch(
      new RegExp(`approval ${reqA.id} was already decided \\(${winner}`),
    );
    const end = await run.final;
    expect(end.status).toBe("ok");
    if (winner === "allow-once") expect(replyText(end)).toContain(`done: ${word}`);
    else expect(replyText(end)).toContain("Denied: the user did not allow running");
    // Each approver, on its own node, hears the one decision once.
    for (const events of [onA.events, onB.events]) {
      const ends = await resolvedFor(events, reqA.id);
      expect(ends).toEqual([expect.objectContaining({ id: reqA.id, decision: winner, cause: "decided" })]);
    }
    const { rows } = await db.query("SELECT status, decision FROM cluster_approvals WHERE id = $1", [reqA.id]);
    expect(rows[0]).toEqual({ status: "resolved", decision: winner });
  }, 120_000);

  it("plugin approvals: asked on one node, listed and decided on the other; a timeout there reaches both", async () => {
    const runId = randomUUID();
    const final = a().client.request(
      "agent",
      { message: "[tool:read:gated-notes.txt]", idempotencyKey: runId, sessionKey: "ca-plugin" },
      { expectFinal: true },
    ) as Promise<any>;
    const other = (await executingNode(runId)) === "gw-a" ? b() : a();
    const approver = await approverOn(other);
    await until(
      () => payloads(approver.events, "plugin.approval.requested").some((p) => p.request.runId === runId),
      30_000,
      "plugin.approval.requested",
    );
    const req = payloads(approver.events, "plugin.approval.requested").find((p) => p.request.runId === runId);
    expect(req.request).toMatchObject({
      pluginId: "gate",
      title: "Read a gated file?",
      severity: "critical",
      toolName: "read",
      allowedDecisions: ["allow-once", "deny"],
    });
    const listed: any = await approver.client.request("plugin.approval.list", { sessionKey: "ca-plugin" });
    expect(listed.approvals.map((x: any) => x.id)).toEqual([req.id]);
    await expect(
      approver.client.request("plugin.approval.resolve", { id: req.id, decision: "allow-always" }),
    ).rejects.toThrow(/not offered/);
    await approver.client.request("plugin.approval.resolve", { id: req.id, decision: "deny", reason: "private" });
    const end = await final;
    expect(replyText(end)).toContain("Denied: the user did not allow running");
    expect(replyText(end)).toContain("private");
    await until(
      () => payloads(approver.events, "plugin.approval.resolved").some((p) => p.id === req.id),
      30_000,
      "plugin.approval.resolved",
    );

    // Nobody decides in time: the executing node's timeout applies timeoutBehavior, and every node hears of it.
    const briefId = randomUUID();
    const brief: any = await a().client.request(
      "agent",
      { message: "[tool:read:brief-notes.txt]", idempotencyKey: briefId, sessionKey: "ca-plugin-brief" },
      { expectFinal: true },
    );
    expect(brief.status).toBe("ok");
    const { rows } = await db.query("SELECT id, decision, cause FROM cluster_approvals WHERE run_id = $1", [briefId]);
    expect(rows).toEqual([{ id: expect.any(String), decision: "allow-once", cause: "timeout" }]);
    // A decision after the timeout committed is told the timeout won.
    await expect(
      approver.client.request("plugin.approval.resolve", { id: rows[0].id, decision: "deny" }),
    ).rejects.toThrow(/already decided \(allow-once by timeout\)/);
    for (const n of [a(), b()]) {
      const events = (await approverOn(n)).events;
      await until(
        () => payloads(events, "plugin.approval.resolved").some((p) => p.id === rows[0].id && p.cause === "timeout"),
        30_000,
        `plugin.approval.resolved (timeout) on ${n.name}`,
      );
    }
    // A timeout deciding what people are not offered (allow, where only deny is) still ends the wait.
    const narrowId = randomUUID();
    const narrow: any = await b().client.request(
      "agent",
      { message: "[tool:read:narrow-notes.txt]", idempotencyKey: narrowId, sessionKey: "ca-plugin-narrow" },
      { expectFinal: true },
    );
    expect(replyText(narrow)).not.toContain("Denied");
    const { rows: narrowRows } = await db.query(
      "SELECT status, decision, cause, approval->'request'->'decisions' AS offered FROM cluster_approvals WHERE run_id = $1",
      [narrowId],
    );
    expect(narrowRows).toEqual([{ status: "resolved", decision: "allow-once", cause: "timeout", offered: ["deny"] }]);
  }, 120_000);

  it("decision vs timeout race: a decision committed as the node's timeout fires wins in the run, the record and the events", async () => {
    const [onA, onB] = [await approverOn(a()), await approverOn(b())];
    const runId = randomUUID();
    const final = a().client.request(
      "agent",
      { message: "[tool:read:edge-notes.txt]", idempotencyKey: runId, sessionKey: "ca-edge" },
      { expectFinal: true },
    ) as Promise<any>;
    await until(
      () => payloads(onA.events, "plugin.approval.requested").some((p) => p.request.runId === runId),
      30_000,
      "plugin.approval.requested (edge)",
    );
    const req = payloads(onA.events, "plugin.approval.requested").find((p) => p.request.runId === runId);
    const waiters = async (): Promise<number> => {
      const { rows } = await db.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
           AND classid::bigint = $1 AND objid::bigint = $2`,
        [LOCK_NAMESPACE, LOCK_APPROVALS],
      );
      return rows[0].n as number;
    };
    // Every change of an approval waits for the lock held here: the decision's transaction starts before the
    // expiry (by the database clock) and is still uncommitted when the executing node's timeout fires.
    await db.query("BEGIN");
    let deciding: Promise<any> | undefined;
    try {
      await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_NAMESPACE, LOCK_APPROVALS]);
      deciding = onB.client
        .request("plugin.approval.resolve", { id: req.id, decision: "deny", reason: "at the edge" })
        .then(
          (ok) => ({ ok }),
          (err: Error) => ({ err }),
        );
      await untilValue("the decision waiting for the lock", async () => ((await waiters()) >= 1 ? true : undefined));
      const { rows: early } = await db.query(
        "SELECT clock_timestamp() < expires_db AS early FROM cluster_approvals WHERE id = $1",
        [req.id],
      );
      expect(early[0].early).toBe(true);
      await untilValue(
        "the database clock past the expiry and the node's timeout firing",
        async () => {
          const { rows } = await db.query(
            "SELECT clock_timestamp() > expires_db AS past FROM cluster_approvals WHERE id = $1",
            [req.id],
          );
          return rows[0].past === true && (await waiters()) >= 2 ? true : undefined;
        },
        30_000,
      );
    } finally {
      await db.query("COMMIT");
    }
    // The decider was told ok, and that is what happened everywhere.
    expect(await deciding).toEqual({ ok: { ok: true, id: req.id, decision: "deny" } });
    const end = await final;
    expect(end.status).toBe("ok");
    expect(replyText(end)).toContain("Denied: the user did not allow running");
    expect(replyText(end)).toContain("at the edge");
    const { rows } = await db.query("SELECT status, decision, cause FROM cluster_approvals WHERE id = $1", [req.id]);
    expect(rows[0]).toEqual({ status: "resolved", decision: "deny", cause: "decided" });
    for (const events of [onA.events, onB.events]) {
      await until(
        () => payloads(events, "plugin.approval.resolved").some((p) => p.id === req.id),
        30_000,
        "plugin.approval.resolved (edge)",
      );
      expect(payloads(events, "plugin.approval.resolved").filter((p) => p.id === req.id)).toEqual([
        expect.objectContaining({ decision: "deny", cause: "decided", reason: "at the edge" }),
      ]);
    }
  }, 120_000);

  it("a fast decision cannot skip the request event: a node reading the request only once decided announces it first", async () => {
    const approver = await approverOn(a());
    // A node that reads the table only after the decision sees the latest state: here the request and its
    // decision commit in one transaction (two changes, one NOTIFY), so no node ever reads it pending.
    const id = `approval_${randomUUID()}`;
    const cmd = `echo fast-${randomUUID().slice(0, 8)}`;
    const now = Date.now();
    const approval = {
      id,
      toolCall: { type: "toolCall", id: "call_fast", name: "exec", arguments: { command: cmd } },
      args: { command: cmd },
      request: { title: "Run it?", meta: { kind: "exec", command: cmd, cwd: "/tmp" } },
      createdAt: now,
    };
    const request = {
      runId: `gone-${id}`,
      sessionKey: "agent:main:ca-fast",
      agentId: "main",
      message: "hi",
      acceptedAt: now,
    };
    await db.query("BEGIN");
    try {
      await db.query("SELECT pg_advisory_xact_lock($1, $2)", [LOCK_NAMESPACE, LOCK_APPROVALS]);
      await db.query(
        `INSERT INTO cluster_approvals (id, kind, session_key, agent_id, run_id, node_id, status, approval, request,
           results, created_at, change_id)
         VALUES ($1, 'exec', 'agent:main:ca-fast', 'main', $2, 'gw-gone', 'pending', $3, $4, '[]', $5,
           nextval('cluster_approval_change'))`,
        [id, request.runId, JSON.stringify(approval), JSON.stringify(request), now],
      );
      await db.query(
        `UPDATE cluster_approvals SET status = 'decided', decision = 'allow-once', cause = 'decided',
           resolved_by = 'fast-op', resolved_at = $2, change_id = nextval('cluster_approval_change') WHERE id = $1`,
        [id, now],
      );
      await db.query("SELECT pg_notify($1, 'change')", [CHANNEL_APPROVALS]);
    } finally {
      await db.query("COMMIT");
    }
    // Its run is not running anywhere, so the sweep ends it; the approver hears the request, then the end.
    await resolvedFor(approver.events, id);
    const mine = approver.events.filter((e) => (e.payload as any)?.id === id).map((e) => e.event);
    expect(mine).toEqual(["exec.approval.requested", "exec.approval.resolved"]);
    expect(payloads(approver.events, "exec.approval.requested").find((p) => p.id === id).request.command).toBe(cmd);
  }, 60_000);

  it("gw-b SIGKILLed while its run waits: the run ends interrupted, its approval resolves (aborted) everywhere", async () => {
    const approver = await approverOn(a());
    const holdCmd = `echo hold2-${randomUUID().slice(0, 8)}`;
    const holder = execRun(a(), holdCmd, "ca-holder2");
    const held = await requestFor(approver.events, holdCmd);
    const word = `killed-${randomUUID().slice(0, 8)}`;
    const run = execRun(a(), `echo ${word}`, "ca-killed");
    const req = await requestFor(approver.events, `echo ${word}`);
    expect(await executingNode(run.runId)).toBe("gw-b");

    await b().gw.kill();
    // The lease runs out, the reaper on gw-a ends the run interrupted, and its approval ends with it.
    const end = await run.final;
    expect(end.status).toBe("error");
    const [resolved, ...again] = await resolvedFor(approver.events, req.id);
    expect(again).toEqual([]);
    expect(resolved).toMatchObject({ id: req.id, decision: "deny", cause: "aborted", resolvedBy: "cluster" });
    expect(resolved.reason).toMatch(/gateway node gw-b executing the run stopped; the run ended interrupted/);
    const { rows } = await db.query("SELECT status FROM cluster_runs WHERE run_id = $1", [run.runId]);
    expect(rows[0]?.status).toBe("interrupted");
    // Nothing is left that nobody can clear, and a late decision is told why.
    const list: any = await approver.client.request("exec.approval.list", {});
    expect(list.approvals.map((x: any) => x.id)).not.toContain(req.id);
    await expect(
      approver.client.request("exec.approval.resolve", { id: req.id, decision: "allow-once" }),
    ).rejects.toThrow(/was already decided \(deny by cluster\)/);
    // The holder (on gw-a, or cut with gw-b) ends too; the killed run's session serves a new run on gw-a.
    await approver.client.request("exec.approval.resolve", { id: held.id, decision: "deny" }).catch(() => undefined);
    await holder.final;
    const next: any = await a().client.request(
      "agent",
      { message: "after the kill", idempotencyKey: randomUUID(), sessionKey: "ca-killed" },
      { expectFinal: true },
    );
    expect(next.status).toBe("ok");
    const { rows: open } = await db.query("SELECT id FROM cluster_approvals WHERE status <> 'resolved'");
    expect(open).toEqual([]);
  }, 120_000);

  it("gw-b restarted, then stopped gracefully while its run waits: the wait ends aborted on the record, everywhere", async () => {
    nodes[1] = await startNode("gw-b", b().home, WRITER);
    const approver = await approverOn(a());
    const holdCmd = `echo hold3-${randomUUID().slice(0, 8)}`;
    const holder = execRun(a(), holdCmd, "ca-holder3");
    const held = await requestFor(approver.events, holdCmd);
    const word = `stopped-${randomUUID().slice(0, 8)}`;
    const run = execRun(a(), `echo ${word}`, "ca-stopped");
    const req = await requestFor(approver.events, `echo ${word}`);
    expect(await executingNode(run.runId)).toBe("gw-b");

    await b().gw.stop();
    const end = await run.final;
    expect(end.status).toBe("error");
    const [resolved, ...again] = await resolvedFor(approver.events, req.id);
    expect(again).toEqual([]);
    expect(resolved).toMatchObject({ id: req.id, decision: "deny", cause: "aborted" });
    const { rows } = await db.query("SELECT status FROM cluster_runs WHERE run_id = $1", [run.runId]);
    expect(rows[0]?.status).toBe("aborted");
    await approver.client.request("exec.approval.resolve", { id: held.id, decision: "deny" }).catch(() => undefined);
    await holder.final;
    const { rows: open } = await db.query("SELECT id FROM cluster_approvals WHERE status <> 'resolved'");
    expect(open).toEqual([]);
  }, 120_000);
});
