export * from "./agent.js";
export * from "./agent-loop.js";
export type { AgentEventHandler, AgentOptions, QueuedMessageInput, QueuedUserMessage } from "./agent-options.js";
export {
  APPROVAL_DECISIONS,
  defaultApprovalRequest,
  expiredApproval,
  isApprovalDecision,
  type ResolveApprovalOptions,
} from "./approvals.js";
export * from "./proxy.js";
export { toolResultOf } from "./resume.js";
export { SKIPPED_FOR_ABORT, SKIPPED_FOR_STEERING, type SkipCause } from "./tool-execution.js";
export * from "./types.js";
