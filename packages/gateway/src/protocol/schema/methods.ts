/**
 * The method catalog: every method the gateway serves with the scope it needs, its params and its result.
 * Handlers bind to these specs (methods/define-method.ts); hello-ok's method list, scope checks, params
 * validation and protocol.schema.json all come from here.
 */
import type { TSchema } from "typebox";
import { Type } from "typebox";
import { AgentParamsSchema, AgentResultSchema, AgentWaitParamsSchema, WaitResultSchema } from "./agent.js";
import {
  ApprovalGetParamsSchema,
  ApprovalListParamsSchema,
  ApprovalResolveParamsSchema,
  ApprovalResolveResultSchema,
  ExecApprovalListResultSchema,
  ExecApprovalRecordSchema,
  PluginApprovalListResultSchema,
} from "./approvals.js";
import {
  ChatAbortParamsSchema,
  ChatAbortResultSchema,
  ChatHistoryParamsSchema,
  ChatHistoryResultSchema,
  ChatSendParamsSchema,
  ChatSendResultSchema,
} from "./chat.js";
import {
  SessionKeyParamsSchema,
  SessionsCompactResultSchema,
  SessionsDeleteParamsSchema,
  SessionsDeleteResultSchema,
  SessionsDescribeResultSchema,
  SessionsEntryResultSchema,
  SessionsListParamsSchema,
  SessionsListResultSchema,
  SessionsPatchParamsSchema,
  SessionsResetParamsSchema,
  SessionsSubscribeParamsSchema,
  SessionsSubscribeResultSchema,
  SessionsUnsubscribeResultSchema,
} from "./sessions.js";
import {
  AgentsListResultSchema,
  EmptyParamsSchema,
  HealthResultSchema,
  ModelsListResultSchema,
  StatusResultSchema,
} from "./system.js";

/**
 * Operator scopes. `operator.admin` implies every other scope, write implies read; `operator.approvals` (deciding
 * approvals: remote-execution-grade authority) is implied by admin only, never by write.
 */
export type Scope = "operator.read" | "operator.write" | "operator.admin" | "operator.approvals" | "operator.pairing";

/** One method of the protocol, without its handler. */
export interface MethodSpec<P extends TSchema = TSchema, R extends TSchema = TSchema> {
  readonly scope: Scope;
  readonly params: P;
  /** Every payload of an `ok:true` response (two for `agent` and `chat.send`). */
  readonly result: R;
  readonly description: string;
}

const spec = <P extends TSchema, R extends TSchema>(
  scope: Scope,
  params: P,
  result: R,
  description: string,
): MethodSpec<P, R> => ({ scope, params, result, description });

const READ = "operator.read";
const WRITE = "operator.write";
const ADMIN = "operator.admin";
const APPROVALS = "operator.approvals";

const SessionsMessagesParamsSchema = Type.Object({ key: Type.String({ minLength: 1, pattern: "\\S" }) });

export const METHOD_SPECS = {
  health: spec(READ, EmptyParamsSchema, HealthResultSchema, "The reference's health summary."),
  status: spec(READ, EmptyParamsSchema, StatusResultSchema, "Uptime, default model, active runs, busy lanes."),
  "agents.list": spec(READ, EmptyParamsSchema, AgentsListResultSchema, "The configured agents."),
  "models.list": spec(READ, EmptyParamsSchema, ModelsListResultSchema, "Every model the gateway can run."),
  agent: spec(
    WRITE,
    AgentParamsSchema,
    AgentResultSchema,
    "Runs one message on a session: answered accepted at once, then final on the same id.",
  ),
  "agent.wait": spec(READ, AgentWaitParamsSchema, WaitResultSchema, "Waits for a run's end (ends only the wait)."),
  "chat.send": spec(WRITE, ChatSendParamsSchema, ChatSendResultSchema, "A run on a session: started, then its end."),
  "chat.history": spec(
    READ,
    ChatHistoryParamsSchema,
    ChatHistoryResultSchema,
    "The session's user/assistant messages.",
  ),
  "chat.abort": spec(WRITE, ChatAbortParamsSchema, ChatAbortResultSchema, "Aborts the session's active run."),
  "sessions.list": spec(READ, SessionsListParamsSchema, SessionsListResultSchema, "The session index."),
  "sessions.describe": spec(READ, SessionKeyParamsSchema, SessionsDescribeResultSchema, "One session row by key."),
  "sessions.reset": spec(WRITE, SessionsResetParamsSchema, SessionsEntryResultSchema, "A fresh session id."),
  "sessions.delete": spec(ADMIN, SessionsDeleteParamsSchema, SessionsDeleteResultSchema, "Removes a session."),
  "sessions.compact": spec(WRITE, SessionKeyParamsSchema, SessionsCompactResultSchema, "Summarizes older history."),
  "sessions.patch": spec(WRITE, SessionsPatchParamsSchema, SessionsEntryResultSchema, "Per-session overrides."),
  "sessions.subscribe": spec(
    READ,
    SessionsSubscribeParamsSchema,
    SessionsSubscribeResultSchema,
    "Follow a session's events (no key: every session's).",
  ),
  "sessions.messages.subscribe": spec(
    READ,
    SessionsMessagesParamsSchema,
    SessionsSubscribeResultSchema,
    "Follow one session's events; with the session-scoped-events cap, the only way to receive them.",
  ),
  "sessions.messages.unsubscribe": spec(
    READ,
    SessionsMessagesParamsSchema,
    SessionsUnsubscribeResultSchema,
    "Stop following one session's events.",
  ),
  "exec.approval.list": spec(
    APPROVALS,
    ApprovalListParamsSchema,
    ExecApprovalListResultSchema,
    "Pending exec approvals (backfill after connecting; live ones arrive as exec.approval.requested).",
  ),
  "exec.approval.get": spec(APPROVALS, ApprovalGetParamsSchema, ExecApprovalRecordSchema, "One pending exec approval."),
  "exec.approval.resolve": spec(
    APPROVALS,
    ApprovalResolveParamsSchema,
    ApprovalResolveResultSchema,
    "Decides a pending exec approval (first answer wins); a run that died with the gateway resumes.",
  ),
  "plugin.approval.list": spec(
    APPROVALS,
    ApprovalListParamsSchema,
    PluginApprovalListResultSchema,
    "Pending plugin approvals (before_tool_call requireApproval).",
  ),
  "plugin.approval.resolve": spec(
    APPROVALS,
    ApprovalResolveParamsSchema,
    ApprovalResolveResultSchema,
    "Decides a pending plugin approval (first answer wins); a run that died with the gateway resumes.",
  ),
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHOD_SPECS;
