/**
 * Approvals on the wire: a tool call that waits for a person's yes. Two kinds, as in the reference: `exec`
 * (a shell command under `$TILLER_HOME/exec-approvals.json`) and `plugin` (a `before_tool_call` hook that
 * returned `requireApproval`). Methods `exec.approval.list|get|resolve` and `plugin.approval.list|resolve`,
 * events `exec.approval.requested|resolved` and `plugin.approval.requested|resolved`, all behind the
 * `operator.approvals` scope; the run's own view is the `approval` stream of its `agent` events.
 */
import { type Static, Type } from "typebox";
import { NonEmptyString, StringEnum, Timestamp } from "./common.js";

export const APPROVAL_DECISIONS = ["allow-once", "allow-always", "deny"] as const;
export const ApprovalDecisionSchema = StringEnum(APPROVAL_DECISIONS, {
  description: "allow-once: run this call · allow-always: run it and remember (exec: the allowlist) · deny",
});
export type ApprovalDecisionWire = Static<typeof ApprovalDecisionSchema>;

export const APPROVAL_KINDS = ["exec", "plugin"] as const;
export const ApprovalKindSchema = StringEnum(APPROVAL_KINDS);
export type ApprovalKind = Static<typeof ApprovalKindSchema>;

/** Why a wait ended: someone decided, the timeout decided, the run was aborted, or nobody could be asked. */
export const APPROVAL_CAUSES = ["decided", "timeout", "aborted", "unavailable"] as const;
export const ApprovalCauseSchema = StringEnum(APPROVAL_CAUSES);

const Severity = StringEnum(["info", "warning", "critical"] as const);

/** Where the call comes from (both kinds). */
const origin = {
  agentId: Type.String(),
  sessionKey: Type.String(),
  runId: Type.String(),
  toolName: Type.String(),
  toolCallId: Type.String(),
  allowedDecisions: Type.Array(ApprovalDecisionSchema, { description: "The decisions `resolve` accepts." }),
  timeoutBehavior: Type.Optional(StringEnum(["allow", "deny"] as const, { description: "What a timeout decides." })),
};

export const ExecApprovalRequestSchema = Type.Object(
  {
    command: Type.String({ description: "The command exactly as it will run." }),
    cwd: Type.String(),
    host: Type.Literal("gateway"),
    security: Type.Optional(Type.String()),
    ask: Type.Optional(Type.String()),
    resolvedPath: Type.Optional(Type.String({ description: "The first executable, resolved (when it could be)." })),
    ...origin,
  },
  { description: "An exec approval's request: the command, where it runs, and who asks." },
);

export const PluginApprovalRequestSchema = Type.Object(
  {
    pluginId: Type.Optional(Type.String()),
    title: Type.String(),
    description: Type.Optional(Type.String()),
    severity: Severity,
    ...origin,
  },
  { description: "A plugin approval's request, as its before_tool_call hook described it." },
);

const record = <R extends typeof ExecApprovalRequestSchema | typeof PluginApprovalRequestSchema>(request: R) =>
  Type.Object({
    id: Type.String(),
    request,
    createdAtMs: Timestamp(),
    expiresAtMs: Type.Optional(Timestamp("Past it, timeoutBehavior decides.")),
  });

/** `exec.approval.requested` and one row of `exec.approval.list`. */
export const ExecApprovalRecordSchema = record(ExecApprovalRequestSchema);
export type ExecApprovalRecord = Static<typeof ExecApprovalRecordSchema>;
/** `plugin.approval.requested` and one row of `plugin.approval.list`. */
export const PluginApprovalRecordSchema = record(PluginApprovalRequestSchema);
export type PluginApprovalRecord = Static<typeof PluginApprovalRecordSchema>;

/** `exec.approval.resolved` / `plugin.approval.resolved`. */
export const ApprovalResolvedSchema = Type.Object({
  id: Type.String(),
  decision: ApprovalDecisionSchema,
  cause: ApprovalCauseSchema,
  resolvedBy: Type.Optional(Type.String({ description: "A client id, `timeout`, `abort` or `gateway`." })),
  reason: Type.Optional(Type.String()),
  ts: Timestamp(),
});
export type ApprovalResolved = Static<typeof ApprovalResolvedSchema>;

export const ApprovalListParamsSchema = Type.Object({
  sessionKey: Type.Optional(Type.String({ description: "Only this session's approvals." })),
});
export const ExecApprovalListResultSchema = Type.Object({ approvals: Type.Array(ExecApprovalRecordSchema) });
export const PluginApprovalListResultSchema = Type.Object({ approvals: Type.Array(PluginApprovalRecordSchema) });

export const ApprovalGetParamsSchema = Type.Object({ id: NonEmptyString() });

export const ApprovalResolveParamsSchema = Type.Object({
  id: NonEmptyString(),
  decision: ApprovalDecisionSchema,
  reason: Type.Optional(Type.String({ maxLength: 2000, description: "A denial's reason reaches the model." })),
});
export type ApprovalResolveParams = Static<typeof ApprovalResolveParamsSchema>;

export const ApprovalResolveResultSchema = Type.Object({
  ok: Type.Literal(true),
  id: Type.String(),
  decision: ApprovalDecisionSchema,
  resumed: Type.Optional(
    Type.Boolean({ description: "The run died with an earlier gateway process; deciding resumed it." }),
  ),
});
export type ApprovalResolveResult = Static<typeof ApprovalResolveResultSchema>;

/** The `approval` stream of a run's `agent` events. */
export const ApprovalDataSchema = Type.Object(
  {
    phase: StringEnum(["requested", "resolved"] as const),
    id: Type.String(),
    kind: ApprovalKindSchema,
    toolName: Type.String(),
    toolCallId: Type.String(),
    title: Type.Optional(Type.String()),
    command: Type.Optional(Type.String()),
    expiresAtMs: Type.Optional(Timestamp()),
    decision: Type.Optional(ApprovalDecisionSchema),
    cause: Type.Optional(ApprovalCauseSchema),
    resolvedBy: Type.Optional(Type.String()),
  },
  { description: "`approval`: a tool call of this run waits for a decision (requested), then got one (resolved)." },
);
export type ApprovalData = Static<typeof ApprovalDataSchema>;

/** Approval events, sent only to connections holding `operator.approvals`. */
export const APPROVAL_EVENTS = [
  "exec.approval.requested",
  "exec.approval.resolved",
  "plugin.approval.requested",
  "plugin.approval.resolved",
] as const;
export type ApprovalEventName = (typeof APPROVAL_EVENTS)[number];
