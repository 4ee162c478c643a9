/**
 * The gateway protocol, defined once: frames, handshake, every method's params and result, every event payload
 * and the error codes, as TypeBox schemas. Types come from `Static<>`, validation from the compiled schemas, and
 * `scripts/protocol-schema.mjs` writes packages/gateway/protocol.schema.json from `protocolDocument()`.
 */
import { MIN_PROTOCOL_VERSION, PROTOCOL_VERSION } from "../frames.js";
import * as agent from "./agent.js";
import * as approvals from "./approvals.js";
import * as chat from "./chat.js";
import * as events from "./events.js";
import * as frames from "./frames.js";
import * as handshake from "./handshake.js";
import { METHOD_SPECS } from "./methods.js";

export * from "./agent.js";
export * from "./approvals.js";
export * from "./chat.js";
export * from "./common.js";
export * from "./events.js";
export * from "./frames.js";
export * from "./handshake.js";
export * from "./methods.js";
export * from "./sessions.js";
export * from "./system.js";
export * from "./validate.js";

/** The whole protocol as one JSON Schema document (what protocol.schema.json holds). */
export function protocolDocument(): Record<string, unknown> {
  const methods: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(METHOD_SPECS)) {
    methods[name] = { scope: s.scope, description: s.description, params: s.params, result: s.result };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Tiller gateway protocol (OpenClaw-compatible)",
    protocol: { min: MIN_PROTOCOL_VERSION, max: PROTOCOL_VERSION },
    errorCodes: frames.ERROR_CODES,
    errorDetailCodes: frames.ERROR_DETAIL_CODES,
    frames: {
      request: frames.RequestFrameSchema,
      response: frames.ResponseFrameSchema,
      event: frames.EventFrameSchema,
      error: frames.ErrorShapeSchema,
    },
    handshake: {
      challenge: handshake.ConnectChallengeSchema,
      connect: handshake.ConnectParamsSchema,
      helloOk: handshake.HelloOkSchema,
      /** What the connection will receive of a run's text, chosen from what `connect` announced. */
      textView: events.TextViewSchema,
    },
    methods,
    events: {
      "connect.challenge": handshake.ConnectChallengeSchema,
      agent: events.AgentEventSchema,
      chat: events.ChatEventSchema,
      tick: events.TickEventSchema,
      shutdown: events.ShutdownEventSchema,
      error: events.ErrorEventSchema,
      "exec.approval.requested": approvals.ExecApprovalRecordSchema,
      "exec.approval.resolved": approvals.ApprovalResolvedSchema,
      "plugin.approval.requested": approvals.PluginApprovalRecordSchema,
      "plugin.approval.resolved": approvals.ApprovalResolvedSchema,
    },
    shared: {
      replyPayload: agent.ReplyPayloadSchema,
      runResult: agent.RunResultSchema,
      historyMessage: chat.HistoryMessageSchema,
    },
  };
}
