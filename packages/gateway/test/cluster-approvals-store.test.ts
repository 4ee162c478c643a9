/**
 * The cluster's shared approvals store on a real PostgreSQL, with two in-process cluster nodes holding real
 * runs: a decision is committed once however many nodes race for it (the losers are told who won) and every node
 * hears of it once; a decision after the expiry by the database clock is refused whatever the node's clock
 * says; a timeout goes through the same first-wins update (the loser is told who won); an approver is counted only while its node's lease is valid; approvals of a run that ended without
 * taking them are resolved by the sweep with the reason.
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { StoredApproval } from "../src/approvals/types.js";
import { ClusterApprovals } from "../src/cluster/cluster-approvals.js";
import { ClusterNode, type ClusterRunExecutor } from "../src/cluster/index.js";
import { until } from "./helpers/cluster.js";
import { PG_MISSING, startPostgres, type TestPostgres } from "./helpers/postgres.js";

interface Member {
  node: ClusterNode;
  approvals: ClusterApprovals;
  seen: StoredApproval[];
}

describe.skipIf(PG_MISSING)("cluster approvals store", () => {
  let pg: TestPostgres;
  let members: Member[] = [];
  /** Runs are held until released, so an approval's run is `running` for as long as a test needs. */
  const held = new Map<string, () => void>();
  const executor: ClusterRunExecutor = async (run) => {
    await new Promise<void>((release) => held.set(run.runId, release));
    return { status: "ok", summary: "completed" };
  };

  beforeAll(async () => {
    pg = await startPostgres();
  }, 120_000);
  afterEach(async () => {
    for (const release of held.values()) release();
    for (const m of members) {
      m.approvals.close();
      await m.node.close({ abortRuns: true });
    }
    members = [];
  });
  afterAll(async () => {
    await pg?.stop();
  });

  async function cluster(): Promise<Member[]> {
    const url = await pg.createDatabase();
    members = await Promise.all(
      ["a", "b"].map(async (id) => {
        const node = await ClusterNode.start({ url, nodeId: `node-${id}`, executor, pollMs: 200 });
        const approvals = await ClusterApprovals.start(node, { pollMs: 200 });
        const m: Member = { node, approvals, seen: [] };
        approvals.onChange((a) => m.seen.push(a));
        return m;
      }),
    );
    return members;
  }

  /** A run of session `key`, claimed and running on some node. */
  async function runningRun(via: Member, key = `agent:main:${randomUUID().slice(0, 8)}`): Promise<string> {
    const runId = randomUUID();
    await via.node.submit({ runId, sessionKey: key, agentId: "main", message: "hi" });
    await until(`run ${runId} running`, async () =>
      (await via.node.get(runId))?.status === "running" ? true : undefined,
    );
    return runId;
  }

  function approvalOf(runId: string, opts: { timeoutMs?: number; expiresAt?: number } = {}): StoredApproval {
    const id = `approval_${randomUUID()}`;
    const createdAt = Date.now();
    return {
      id,
      kind: "plugin",
      sessionKey: "agent:main:x",
      agentId: "main",
      runId,
      status: "pending",
      approval: {
        id,
        toolCall: { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } },
        args: { path: "a.txt" },
        request: { title: "Read it?", ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}) },
        createdAt,
        ...(opts.expiresAt !== undefined ? { expiresAt: opts.expiresAt } : {}),
      } as unknown as StoredApproval["approval"],
      request: { runId, sessionKey: "agent:main:x", agentId: "main", message: "hi", acceptedAt: createdAt } as never,
      results: [],
      createdAt,
      ...(opts.expiresAt !== undefined ? { expiresAt: opts.expiresAt } : {}),
    };
  }

  const decision = (by: string) => ({
    decision: "allow-once" as const,
    cause: "decided" as const,
    resolvedBy: by,
    at: Date.now(),
  });

  it("ten decisions on two nodes at once: one is committed, the others are told who decided", async () => {
    const [a, b] = (await cluster()) as [Member, Member];
    const runId = await runningRun(a);
    const req = approvalOf(runId);
    await a.approvals.insert(req);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => ((i % 2 ? b : a) as Member).approvals.decide(req.id, decision(`op${i}`))),
    );
    const won = answers.filter((r) => r.ok);
    expect(won).toHaveLength(1);
    const winner = won[0]?.ok ? won[0].approval.resolvedBy : undefined;
    for (const r of answers.filter((x) => !x.ok)) {
      expect(r).toMatchObject({ ok: false, reason: "decided", approval: { status: "decided", resolvedBy: winner } });
    }
    // Every node hears of the decision once, after the request unless it read both at once (the state it reads).
    for (const m of [a, b]) {
      await until("the decision on every node", () =>
        m.seen.some((s) => s.id === req.id && s.status === "decided") ? true : undefined,
      );
      const states = m.seen.filter((s) => s.id === req.id).map((s) => `${s.status}:${s.resolvedBy ?? ""}`);
      expect([["pending:", `decided:${winner}`], [`decided:${winner}`]]).toContainEqual(states);
    }
  }, 60_000);

  it("a decision after the expiry by the database clock is refused, though the node's clock says it is early", async () => {
    const [a, b] = (await cluster()) as [Member, Member];
    const runId = await runningRun(a);
    // The node's own expiry is an hour away; the database's is 300 ms after the insert.
    const short = approvalOf(runId, { timeoutMs: 300, expiresAt: Date.now() + 3_600_000 });
    const long = approvalOf(runId, { timeoutMs: 3_600_000 });
    await a.approvals.insert(short);
    await a.approvals.insert(long);
    await until("the database clock to pass the expiry", async () => {
      const { rows } = await a.node.pool.query(
        "SELECT expires_db < now() AS past FROM cluster_approvals WHERE id = $1",
        [short.id],
      );
      return rows[0]?.past === true ? true : undefined;
    });
    expect(await b.approvals.decide(short.id, decision("late"))).toMatchObject({ ok: false, reason: "expired" });
    expect((await b.approvals.get(short.id))?.status).toBe("pending");
    expect(await b.approvals.decide(long.id, decision("in time"))).toMatchObject({ ok: true });
  }, 60_000);

  it("decision vs timeout race: exactly one of the timeout and a decision is committed, the loser is told who won", async () => {
    const [a, b] = (await cluster()) as [Member, Member];
    const runId = await runningRun(a);
    const timeout = { decision: "deny" as const, cause: "timeout" as const, resolvedBy: "timeout", at: Date.now() };
    const pastExpiry = (id: string) =>
      until("the database clock to pass the expiry", async () => {
        const { rows } = await a.node.pool.query(
          "SELECT expires_db < now() AS past FROM cluster_approvals WHERE id = $1",
          [id],
        );
        return rows[0]?.past === true ? true : undefined;
      });
    // The node's clock says it expired, the database's does not yet: refused, with the time left.
    const early = approvalOf(runId, { timeoutMs: 60_000, expiresAt: Date.now() - 1 });
    await a.approvals.insert(early);
    const tooSoon = await a.approvals.expire(early.id, timeout);
    expect(tooSoon).toMatchObject({ ok: false, reason: "early" });
    expect(tooSoon.ok === false && tooSoon.reason === "early" ? tooSoon.inMs : 0).toBeGreaterThan(50_000);
    expect((await b.approvals.get(early.id))?.status).toBe("pending");

    // The timeout first: committed; a decision after it is told the timeout won.
    const timedOut = approvalOf(runId, { timeoutMs: 200 });
    await a.approvals.insert(timedOut);
    await pastExpiry(timedOut.id);
    expect(await a.approvals.expire(timedOut.id, timeout)).toMatchObject({
      ok: true,
      approval: { status: "decided", decision: "deny", cause: "timeout" },
    });
    expect(await b.approvals.decide(timedOut.id, decision("late op"))).toMatchObject({
      ok: false,
      reason: "decided",
      approval: { decision: "deny", cause: "timeout", resolvedBy: "timeout" },
    });

    // A decision first: the timeout is refused with that decision, which the record keeps.
    const decided = approvalOf(runId, { timeoutMs: 200 });
    await a.approvals.insert(decided);
    expect(await b.approvals.decide(decided.id, decision("quick op"))).toMatchObject({ ok: true });
    await pastExpiry(decided.id);
    expect(await a.approvals.expire(decided.id, timeout)).toMatchObject({
      ok: false,
      reason: "decided",
      approval: { decision: "allow-once", cause: "decided", resolvedBy: "quick op" },
    });
    expect(await b.approvals.get(decided.id)).toMatchObject({ status: "decided", resolvedBy: "quick op" });
  }, 60_000);

  it("an approver is counted only while its node's lease is valid", async () => {
    const [a, b] = (await cluster()) as [Member, Member];
    expect(await b.approvals.refreshPresence()).toBe(false);
    a.approvals.setLocalApprover(true);
    await until("gw b to see a's approver", async () => ((await b.approvals.refreshPresence()) ? true : undefined));
    expect(b.approvals.anyApprover()).toBe(true);
    // a's lease runs out (as when it is killed): its approver no longer counts, whatever its row says.
    await b.node.pool.query("UPDATE cluster_nodes SET lease_until = now() - interval '1 second' WHERE node_id = $1", [
      "node-a",
    ]);
    expect(await b.approvals.refreshPresence()).toBe(false);
    const { rows } = await b.node.pool.query("SELECT present FROM cluster_approvers WHERE node_id = 'node-a'");
    expect(rows).toEqual([{ present: true }]);
  }, 60_000);

  it("approvals of a run that ended without taking them are resolved by the sweep, with the reason", async () => {
    const [a, b] = (await cluster()) as [Member, Member];
    const runId = await runningRun(a);
    const req = approvalOf(runId);
    await a.approvals.insert(req);
    held.get(runId)?.();
    await until("the sweep to resolve it", async () =>
      (await b.approvals.get(req.id))?.status === "resolved" ? true : undefined,
    );
    expect(await b.approvals.get(req.id)).toMatchObject({
      status: "resolved",
      decision: "deny",
      cause: "aborted",
      resolvedBy: "cluster",
      reason: "the run ended (ok) without taking a decision",
    });
    expect(await a.approvals.decide(req.id, decision("too late"))).toMatchObject({ ok: false, reason: "decided" });
    expect(await a.approvals.withStatus("pending")).toEqual([]);
  }, 60_000);
});
