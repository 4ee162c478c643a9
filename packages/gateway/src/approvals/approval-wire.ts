/**
 * The wire views of a stored approval: the `exec.approval.*` / `plugin.approval.*` records (events and list
 * rows), the `*.resolved` payload and the data of the run's `approval` stream. Built in one place so every surface
 * shows the same fields.
 */
import { APPROVAL_DECISIONS, type ApprovalDecision, type PendingApproval } from "@tiller/agent";
import type { ExecApprovalMeta } from "@tiller/coding-agent";
import type {
  ApprovalData,
  ApprovalResolved,
  ExecApprovalRecord,
  PluginApprovalRecord,
} from "../protocol/schema/approvals.js";
import type { ApprovalEnd, ApprovalKind, StoredApproval } from "./types.js";

/** `exec` for a command under exec-approvals.json, `plugin` for every other request (plugins, tools' own rules). */
export function kindOf(approval: PendingApproval): ApprovalKind {
  return (approval.request.meta as { kind?: unknown } | undefined)?.kind === "exec" ? "exec" : "plugin";
}

function execMeta(a: PendingApproval): Partial<ExecApprovalMeta> {
  return (a.request.meta ?? {}) as Partial<ExecApprovalMeta>;
}

function origin(s: StoredApproval) {
  const { approval } = s;
  return {
    agentId: s.agentId,
    sessionKey: s.sessionKey,
    runId: s.runId,
    toolName: approval.toolCall.name,
    toolCallId: approval.toolCall.id,
    allowedDecisions: [...(approval.request.decisions ?? APPROVAL_DECISIONS)],
    ...(approval.request.timeoutMs !== undefined
      ? { timeoutBehavior: approval.request.timeoutBehavior ?? "deny" }
      : {}),
  };
}

const times = (s: StoredApproval) => ({
  createdAtMs: s.createdAt,
  ...(s.expiresAt !== undefined ? { expiresAtMs: s.expiresAt } : {}),
});

export function execRecord(s: StoredApproval): ExecApprovalRecord {
  const meta = execMeta(s.approval);
  const first = meta.persist?.[0];
  return {
    id: s.id,
    request: {
      command: meta.command ?? String(s.approval.args.command ?? ""),
      cwd: meta.cwd ?? "",
      host: "gateway",
      ...(first?.startsWith("/") ? { resolvedPath: first } : {}),
      ...origin(s),
    },
    ...times(s),
  };
}

export function pluginRecord(s: StoredApproval): PluginApprovalRecord {
  const { request } = s.approval;
  const pluginId = (request.meta as { pluginId?: unknown } | undefined)?.pluginId;
  return {
    id: s.id,
    request: {
      ...(typeof pluginId === "string" ? { pluginId } : {}),
      title: request.title,
      ...(request.description !== undefined ? { description: request.description } : {}),
      severity: request.severity ?? "warning",
      ...origin(s),
    },
    ...times(s),
  };
}

/** The `*.requested` event name and payload of an approval. */
export function requestedEvent(s: StoredApproval): {
  event: string;
  payload: ExecApprovalRecord | PluginApprovalRecord;
} {
  return s.kind === "exec"
    ? { event: "exec.approval.requested", payload: execRecord(s) }
    : { event: "plugin.approval.requested", payload: pluginRecord(s) };
}

export function resolvedEvent(s: StoredApproval, e: ApprovalEnd): { event: string; payload: ApprovalResolved } {
  const payload: ApprovalResolved = {
    id: s.id,
    decision: e.decision,
    cause: e.cause,
    ...(e.resolvedBy !== undefined ? { resolvedBy: e.resolvedBy } : {}),
    ...(e.reason !== undefined ? { reason: e.reason } : {}),
    ts: e.at,
  };
  return { event: s.kind === "exec" ? "exec.approval.resolved" : "plugin.approval.resolved", payload };
}

/** Data of the run's `approval` stream. */
export function streamData(s: StoredApproval, e?: ApprovalEnd): ApprovalData {
  const { approval } = s;
  const data: ApprovalData = {
    phase: e ? "resolved" : "requested",
    id: s.id,
    kind: s.kind,
    toolName: approval.toolCall.name,
    toolCallId: approval.toolCall.id,
    title: approval.request.title,
  };
  if (s.kind === "exec") data.command = execRecord(s).request.command;
  if (s.expiresAt !== undefined) data.expiresAtMs = s.expiresAt;
  if (e) {
    data.decision = e.decision as ApprovalDecision;
    data.cause = e.cause;
    if (e.resolvedBy !== undefined) data.resolvedBy = e.resolvedBy;
  }
  return data;
}

/** The end recorded on a stored approval (decided or resolved). */
export function endOf(a: StoredApproval): ApprovalEnd | undefined {
  if (!a.decision || !a.cause) return undefined;
  return {
    decision: a.decision,
    cause: a.cause,
    ...(a.resolvedBy !== undefined ? { resolvedBy: a.resolvedBy } : {}),
    ...(a.reason !== undefined ? { reason: a.reason } : {}),
    at: a.resolvedAt ?? Date.now(),
  };
}
