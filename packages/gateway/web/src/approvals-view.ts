/**
 * Pending approvals of the open session, for a connection holding `operator.approvals` (or admin, which
 * implies it — the gateway's rule): listed on open (exec.approval.list / plugin.approval.list), added live
 * from `*.approval.requested`, decided with `*.approval.resolve`, and closed by `*.approval.resolved`, whoever
 * decided. A connection without the scope gets none of these events; it sees the run wait in its tool card.
 */
import { type ApprovalRequestView, approvalCard, enableCard, showOutcome } from "./approval-card.js";
import type { Transcript } from "./transcript.js";
import type { EventFrame } from "./types.js";

/** `exec.approval.requested` / `plugin.approval.requested` and the rows of their `list`. */
interface ApprovalRecord {
  id: string;
  request: {
    sessionKey: string;
    runId: string;
    toolName: string;
    toolCallId: string;
    allowedDecisions: string[];
    command?: string;
    cwd?: string;
    title?: string;
    description?: string;
  };
}

export interface ApprovalsViewDeps {
  transcript: Transcript;
  request<T>(method: string, params: unknown): Promise<T>;
  current(): string;
  describe(err: unknown): string;
  /** The sessions waiting for a decision changed (the session list marks them). */
  onWaitingChange(): void;
}

/** Whether granted scopes let this connection decide approvals (admin implies every scope). */
export function canApprove(scopes: readonly string[]): boolean {
  return scopes.includes("operator.approvals") || scopes.includes("operator.admin");
}

export class ApprovalsView {
  private enabled = false;
  /** Cards shown in the transcript, by approval id. */
  private readonly cards = new Map<string, { card: HTMLElement; kind: "exec" | "plugin" }>();
  /** Every pending approval this connection knows of, any session: id → full session key. */
  private readonly pending = new Map<string, string>();

  constructor(private readonly deps: ApprovalsViewDeps) {}

  /** After each handshake: whether this connection is an approver. */
  setEnabled(enabled: boolean): void {
    this.enabled = enabled;
  }

  /** Pending approvals of a session (any session, not only the open one). */
  waiting(sessionKey: string): number {
    let n = 0;
    for (const key of this.pending.values()) if (key === full(sessionKey)) n++;
    return n;
  }

  /** The sessions with a pending approval. */
  waitingSessions(): Set<string> {
    return new Set(this.pending.values());
  }

  /** After each handshake: every pending approval, so sessions other than the open one are marked too. */
  async refreshAll(): Promise<void> {
    this.pending.clear();
    if (this.enabled) {
      for (const kind of ["exec", "plugin"] as const) {
        try {
          const r = await this.deps.request<{ approvals: ApprovalRecord[] }>(`${kind}.approval.list`, {});
          for (const rec of r.approvals) this.pending.set(rec.id, full(rec.request.sessionKey));
        } catch {
          // Lost the connection again: the next handshake refreshes.
        }
      }
    }
    this.deps.onWaitingChange();
  }

  /** The open session's pending approvals (after its history is shown: the transcript was rebuilt). */
  async load(): Promise<void> {
    this.cards.clear();
    if (!this.enabled) return;
    const key = this.deps.current();
    for (const kind of ["exec", "plugin"] as const) {
      try {
        const r = await this.deps.request<{ approvals: ApprovalRecord[] }>(`${kind}.approval.list`, {
          sessionKey: key,
        });
        if (key !== this.deps.current()) return;
        for (const rec of r.approvals) this.show(kind, rec);
      } catch (err) {
        this.deps.transcript.addError(`Could not list approvals: ${this.deps.describe(err)}`);
      }
    }
  }

  /** True when the frame was an approval event (handled here). */
  onEvent(f: EventFrame): boolean {
    const m = /^(exec|plugin)\.approval\.(requested|resolved)$/.exec(f.event);
    if (!m) return false;
    const kind = m[1] as "exec" | "plugin";
    if (m[2] === "requested") {
      const rec = f.payload as ApprovalRecord;
      this.pending.set(rec.id, full(rec.request.sessionKey));
      if (full(rec.request.sessionKey) === full(this.deps.current())) this.show(kind, rec);
    } else {
      const p = f.payload as { id: string; decision: string; cause?: string; resolvedBy?: string };
      this.pending.delete(p.id);
      const shown = this.cards.get(p.id);
      if (shown) {
        showOutcome(shown.card, p.decision, p.cause);
        this.cards.delete(p.id);
      }
    }
    this.deps.onWaitingChange();
    return true;
  }

  private show(kind: "exec" | "plugin", rec: ApprovalRecord): void {
    if (this.cards.has(rec.id)) return;
    const r = rec.request;
    const view: ApprovalRequestView = {
      id: rec.id,
      kind,
      toolName: r.toolName,
      command: kind === "exec" ? (r.command ?? "") : (r.title ?? r.toolName),
      detail: kind === "exec" ? r.cwd : r.description,
      decisions: r.allowedDecisions,
    };
    const card = approvalCard(view, (decision) => this.decide(kind, rec.id, decision));
    this.cards.set(rec.id, { card, kind });
    this.deps.transcript.attachToTool(r.runId, r.toolCallId, card);
  }

  private decide(kind: "exec" | "plugin", id: string, decision: string): void {
    this.deps.request(`${kind}.approval.resolve`, { id, decision }).catch((err: unknown) => {
      const shown = this.cards.get(id);
      if (shown) enableCard(shown.card);
      this.deps.transcript.addError(`Approval not recorded: ${this.deps.describe(err)}`);
    });
  }
}

/** "x" is the default agent's "agent:main:x" (the gateway answers with full keys; a page may hold a short one). */
function full(key: string): string {
  return key.startsWith("agent:") ? key : `agent:main:${key}`;
}
