/**
 * In a cluster an approval's timeout is the database's, not the agent's. The agent loop times a request out by
 * itself (`timeoutMs`), and its outcome is final the moment its timer fires: a decision committed on another
 * node at that moment would be told `ok` while the run went the timeout's way. So before the agent sees a
 * request, the run's approval rules move its timeout into `meta` (the agent then waits without a timer), and the
 * hub puts it back on the stored approval and commits the timeout itself through the same first-wins
 * conditional UPDATE as a decision (cluster/cluster-approvals.ts `expire`); the run takes whichever committed.
 * A committed timeout reaches the agent as a decision by `timeout` (its reason: no decision within N ms), so the
 * model reads a denial with that reason; the record, the events and the run's `approval` stream say `timeout`.
 */
import type { AgentTool, ApprovalDecision, ApprovalRequest, PendingApproval, RequiresApproval } from "@tiller/agent";
import type { ApprovalEnd, SharedApprovals, StoredApproval } from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;

/** Where a moved timeout travels in the request's `meta` (plain JSON, stored with the approval). */
const KEY = "sharedTimeout";

interface MovedTimeout {
  ms: number;
  behavior?: "allow" | "deny";
  /** The decisions offered, when the agent's list had to gain the timeout's decision. */
  decisions?: ApprovalDecision[];
}

/** What a timeout decides. */
export function timeoutDecision(r: ApprovalRequest): ApprovalDecision {
  return r.timeoutBehavior === "allow" ? "allow-once" : "deny";
}

function isRequest(v: unknown): v is ApprovalRequest {
  return typeof v === "object" && v !== null && (v as { block?: unknown }).block !== true;
}

/**
 * The request the agent sees: without `timeoutMs`/`timeoutBehavior`, which `meta` carries to the hub. The agent
 * must accept the timeout's decision even when it is not offered to people (the hub checks offers itself).
 */
function withoutTimeout(r: ApprovalRequest): ApprovalRequest {
  if (r.timeoutMs === undefined) return r;
  const { timeoutMs, timeoutBehavior, ...rest } = r;
  const onTimeout = timeoutDecision(r);
  const widen = r.decisions !== undefined && !r.decisions.includes(onTimeout);
  const moved: MovedTimeout = {
    ms: timeoutMs,
    ...(timeoutBehavior !== undefined ? { behavior: timeoutBehavior } : {}),
    ...(widen ? { decisions: r.decisions } : {}),
  };
  return {
    ...rest,
    ...(widen ? { decisions: [...(r.decisions ?? []), onTimeout] } : {}),
    meta: { ...(r.meta ?? {}), [KEY]: moved },
  };
}

/** Wraps the approval rule of every tool whose rule can ask with a timeout (a plain `true` asks without one). */
export function moveTimeouts(tools: AnyTool[]): AnyTool[] {
  return tools.map((t) => {
    const own = t.requiresApproval;
    if (typeof own !== "function") return t;
    const rule: RequiresApproval = async (args, context) => {
      const answer = await own(args, context);
      return isRequest(answer) ? withoutTimeout(answer) : answer;
    };
    return { ...t, requiresApproval: rule };
  });
}

/** The approval as it was asked (its timeout and `expiresAt` back), for the store and the wire. */
export function restoreTimeout(a: PendingApproval): PendingApproval {
  const moved = a.request.meta?.[KEY] as MovedTimeout | undefined;
  if (!moved) return a;
  const { [KEY]: _moved, ...meta } = a.request.meta ?? {};
  const request: ApprovalRequest = {
    ...a.request,
    timeoutMs: moved.ms,
    ...(moved.behavior !== undefined ? { timeoutBehavior: moved.behavior } : {}),
    ...(moved.decisions !== undefined ? { decisions: moved.decisions } : {}),
    meta,
  };
  return { ...a, request, expiresAt: a.createdAt + moved.ms };
}

/** What `commitTimeoutWhenDue` needs from the hub. */
export interface TimeoutHooks {
  /** Whether the run still waits here (else the timer does nothing). */
  live(): boolean;
  /** Hands what the database committed (the timeout, or the decision that came first) to the waiting agent. */
  apply(committed: StoredApproval): void;
  /** The pending timer (to clear when the wait ends), or undefined once it fired. */
  timer(t: NodeJS.Timeout | undefined): void;
  log?: (line: string) => void;
}

/**
 * At the approval's expiry (the node's clock), commits its timeout in the shared store; the database refuses it
 * if a decision came first (that one is applied instead) or if its clock says it is early (tried again then).
 */
export function commitTimeoutWhenDue(
  shared: SharedApprovals,
  a: StoredApproval,
  hooks: TimeoutHooks,
  inMs = Math.max(0, (a.expiresAt ?? Number.POSITIVE_INFINITY) - Date.now()),
): void {
  const timeoutMs = a.approval.request.timeoutMs;
  if (timeoutMs === undefined || !Number.isFinite(inMs)) return;
  const again = (ms: number): void => commitTimeoutWhenDue(shared, a, hooks, ms);
  const fire = (): void => {
    hooks.timer(undefined);
    if (!hooks.live()) return;
    const e: ApprovalEnd = {
      decision: timeoutDecision(a.approval.request),
      cause: "timeout",
      resolvedBy: "timeout",
      reason: `no decision within ${timeoutMs} ms`,
      at: Date.now(),
    };
    shared.expire(a.id, e).then(
      (r) => {
        if (r.ok || r.reason === "decided") hooks.apply(r.approval);
        else if (r.reason === "early") again(r.inMs + 5);
      },
      (err: unknown) => {
        hooks.log?.(`approvals: timeout of ${a.id} not committed yet: ${(err as Error).message}`);
        again(1000);
      },
    );
  };
  const t = setTimeout(fire, inMs);
  t.unref();
  hooks.timer(t);
}
