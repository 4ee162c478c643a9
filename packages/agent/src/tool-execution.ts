/**
 * Execution of one assistant message's tool calls: lookup, argument preparation and validation, the
 * before/after hooks, sequential or parallel execution, and the skipped results steering or abort leave behind.
 * Every tool call gets exactly one result message, whatever happens, so the transcript stays valid for providers.
 */
import type { AssistantMessage, ToolResultMessage } from "@tiller/ai";
import { validateToolArguments } from "@tiller/ai";
import {
  type ApprovalOutcome,
  alwaysKeyOf,
  approvalRequirement,
  awaitApproval,
  finishApproval,
  isBlock,
  makePendingApproval,
  notAllowedText,
} from "./approvals.js";
import type {
  AgentContext,
  AgentEventSink,
  AgentLoopConfig,
  AgentMessage,
  AgentTool,
  AgentToolCall,
  AgentToolResult,
  ApprovalRequest,
  PendingApproval,
  ResumedApproval,
} from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;
// biome-ignore lint/suspicious/noExplicitAny: result details are tool-specific.
type AnyResult = AgentToolResult<any>;

/** Why a tool call that had not started yet was not run. */
export type SkipCause = "steering" | "aborted";

export const SKIPPED_FOR_STEERING =
  "Skipped: the user sent a new message while the tools were running, so this call was not started.";
export const SKIPPED_FOR_ABORT = "Skipped: the run was aborted before this tool call started.";

export interface ToolBatch {
  context: AgentContext;
  assistantMessage: AssistantMessage;
  toolCalls: AgentToolCall[];
  config: AgentLoopConfig;
  /** Signal handed to hooks and tools (the run's, or the turn's when steering may abort it). */
  signal: AbortSignal | undefined;
  emit: AgentEventSink;
  /**
   * Asked at every tool boundary (before a call is prepared). Returns why the remaining calls must not start,
   * or undefined to go on. May drain steering messages as a side effect (the caller keeps them).
   */
  checkBoundary: () => SkipCause | undefined | Promise<SkipCause | undefined>;
  /** Set when this batch finishes one interrupted while waiting for approval (`runAgentLoopResume`). */
  resume?: BatchResume;
}

/** What is already known of a resumed batch, by tool call id. */
export interface BatchResume {
  results: Map<string, ToolResultMessage>;
  approvals: Map<string, ResumedApproval>;
}

export interface ToolBatchOutcome {
  /** One result per tool call, in the assistant's order. */
  results: ToolResultMessage[];
  /** True when every result asked to terminate (pi-agent-core's `terminate` hint). */
  terminate: boolean;
}

interface Finished {
  result: AnyResult;
  isError: boolean;
}

interface Ready {
  tool: AnyTool;
  args: Record<string, unknown>;
  /** Set when the call must wait for a decision before it runs. */
  approval?: PendingApproval;
}

function errorResult(text: string): AnyResult {
  return { content: [{ type: "text", text }], details: {} };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** Not async: awaiting its result costs one tick when listeners are synchronous, not a promise chain. */
function send(emit: AgentEventSink, event: Parameters<AgentEventSink>[0]): Promise<void> | void {
  return emit(event);
}

function findTool(context: AgentContext, name: string): AnyTool | undefined {
  const tools = context.tools;
  if (!tools) return undefined;
  for (const tool of tools) if (tool.name === name) return tool;
  return undefined;
}

/** Validation, `prepareArguments` and `beforeToolCall`: either a call ready to run or its final (error) result. */
async function prepare(batch: ToolBatch, call: AgentToolCall): Promise<Ready | Finished> {
  const known = batch.resume?.results.get(call.id);
  if (known) return { result: { content: known.content, details: known.details }, isError: known.isError };
  const tool = findTool(batch.context, call.name);
  if (!tool) {
    const names = (batch.context.tools ?? []).map((t) => t.name).join(", ");
    return {
      result: errorResult(`Tool "${call.name}" not found. Available tools: ${names || "(none)"}`),
      isError: true,
    };
  }
  const decided = batch.resume?.approvals.get(call.id);
  if (decided) return resumeDecided(batch, call, tool, decided);
  let args: Record<string, unknown>;
  try {
    const raw = tool.prepareArguments ? { ...call, arguments: tool.prepareArguments(call.arguments) } : call;
    args = validateToolArguments(tool, raw as AgentToolCall);
  } catch (error) {
    return { result: errorResult(messageOf(error)), isError: true };
  }
  const hook = batch.config.beforeToolCall;
  let fromHook: ApprovalRequest | undefined;
  if (hook) {
    try {
      const decision = await hook(
        { assistantMessage: batch.assistantMessage, toolCall: call, args, context: batch.context },
        batch.signal,
      );
      if (decision?.block) {
        return { result: errorResult(decision.reason ?? "Tool execution was blocked"), isError: true };
      }
      if (decision && decision.args !== undefined) {
        // Replacement arguments are untrusted like the model's: validate them again.
        args = validateToolArguments(tool, { ...call, arguments: decision.args as AgentToolCall["arguments"] });
      }
      fromHook = decision?.requireApproval;
    } catch (error) {
      return { result: errorResult(messageOf(error)), isError: true };
    }
  }
  // Checked only when something asks for approval: a plain call costs no extra await.
  const requirement =
    fromHook || tool.requiresApproval
      ? await approvalRequirement(tool, fromHook, {
          assistantMessage: batch.assistantMessage,
          toolCall: call,
          args,
          context: batch.context,
        })
      : undefined;
  if (requirement) {
    if (isBlock(requirement)) return { result: errorResult(requirement.reason), isError: true };
    const key = alwaysKeyOf(requirement, tool.name);
    if (key === undefined || !batch.config.approvals?.isAllowedAlways?.(key)) {
      return { tool, args, approval: makePendingApproval(call, args, requirement, batch.assistantMessage) };
    }
  }
  return { tool, args };
}

function notAllowed(approval: PendingApproval, outcome: ApprovalOutcome): Finished {
  const { resolution, cause } = outcome;
  return {
    result: {
      content: [{ type: "text", text: notAllowedText(approval, resolution, cause) }],
      details: { approval: { id: approval.id, ...resolution, cause } },
    },
    isError: true,
  };
}

/** A call decided after a restart: denied, or ready with the arguments stored when it asked. */
async function resumeDecided(
  batch: ToolBatch,
  call: AgentToolCall,
  tool: AnyTool,
  decided: ResumedApproval,
): Promise<Ready | Finished> {
  const { approval, cause, ...resolution } = decided;
  const outcome = await finishApproval(batch.emit, batch.config.approvals, approval, resolution, cause ?? "decided");
  if (!outcome.allowed) return notAllowed(approval, outcome);
  try {
    // Stored arguments crossed a process boundary: validate them again.
    return { tool, args: validateToolArguments(tool, { ...call, arguments: approval.args }) };
  } catch (error) {
    return { result: errorResult(messageOf(error)), isError: true };
  }
}

/** Waits for the call's approval when it needs one, then runs it. Never throws. */
async function runReady(batch: ToolBatch, call: AgentToolCall, ready: Ready): Promise<Finished> {
  const approval = ready.approval;
  if (approval) {
    const outcome = await awaitApproval(batch.emit, batch.config.approvals, approval, batch.signal);
    if (!outcome.allowed) return notAllowed(approval, outcome);
  }
  return execute(batch, call, ready);
}

/** Runs a prepared call, then `afterToolCall`. Never throws. */
async function execute(batch: ToolBatch, call: AgentToolCall, ready: Ready): Promise<Finished> {
  let updates: Promise<void> | undefined;
  const onUpdate = (partialResult: AnyResult): void => {
    const pending = batch.emit({
      type: "tool_execution_update",
      toolCallId: call.id,
      toolName: call.name,
      args: ready.args,
      partialResult,
    });
    if (pending) updates = updates ? updates.then(() => pending) : pending;
  };
  let finished: Finished;
  try {
    const result = await ready.tool.execute(call.id, ready.args, batch.signal, onUpdate);
    finished = { result, isError: false };
  } catch (error) {
    finished = { result: errorResult(messageOf(error)), isError: true };
  }
  if (updates) await updates;
  const hook = batch.config.afterToolCall;
  if (!hook) return finished;
  try {
    const change = await hook(
      {
        assistantMessage: batch.assistantMessage,
        toolCall: call,
        args: ready.args,
        result: finished.result,
        isError: finished.isError,
        context: batch.context,
      },
      batch.signal,
    );
    if (!change) return finished;
    const base = change.result ?? finished.result;
    const result: AnyResult = {
      content: change.content ?? base.content,
      details: change.details !== undefined ? change.details : base.details,
    };
    const terminate = change.terminate ?? base.terminate;
    if (terminate !== undefined) result.terminate = terminate;
    return { result, isError: change.isError ?? finished.isError };
  } catch (error) {
    return { result: errorResult(messageOf(error)), isError: true };
  }
}

function toMessage(call: AgentToolCall, finished: Finished): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: finished.result.content,
    details: finished.result.details,
    isError: finished.isError,
    timestamp: Date.now(),
  };
}

function skipped(cause: SkipCause): Finished {
  return { result: errorResult(cause === "steering" ? SKIPPED_FOR_STEERING : SKIPPED_FOR_ABORT), isError: true };
}

async function emitEnd(batch: ToolBatch, call: AgentToolCall, finished: Finished): Promise<void> {
  await send(batch.emit, {
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: call.name,
    result: finished.result,
    isError: finished.isError,
  });
}

async function emitResultMessage(batch: ToolBatch, message: ToolResultMessage): Promise<void> {
  await send(batch.emit, { type: "message_start", message: message as AgentMessage });
  await send(batch.emit, { type: "message_end", message: message as AgentMessage });
}

/** Emits start and end for a call that never ran (skipped), so UIs can pair them like any other call. */
async function emitSkipped(batch: ToolBatch, call: AgentToolCall, finished: Finished): Promise<void> {
  await send(batch.emit, {
    type: "tool_execution_start",
    toolCallId: call.id,
    toolName: call.name,
    args: call.arguments,
  });
  await emitEnd(batch, call, finished);
}

function allTerminate(finished: Finished[]): boolean {
  return finished.length > 0 && finished.every((f) => f.result.terminate === true);
}

async function runSequential(batch: ToolBatch): Promise<ToolBatchOutcome> {
  const results: ToolResultMessage[] = [];
  const all: Finished[] = [];
  let cause: SkipCause | undefined;
  for (const call of batch.toolCalls) {
    cause ??= await batch.checkBoundary();
    let finished: Finished;
    if (cause) {
      finished = skipped(cause);
      await emitSkipped(batch, call, finished);
    } else {
      await send(batch.emit, {
        type: "tool_execution_start",
        toolCallId: call.id,
        toolName: call.name,
        args: call.arguments,
      });
      const prepared = await prepare(batch, call);
      finished = "tool" in prepared ? await runReady(batch, call, prepared) : prepared;
      await emitEnd(batch, call, finished);
    }
    const message = toMessage(call, finished);
    results.push(message);
    all.push(finished);
    await emitResultMessage(batch, message);
  }
  return { results, terminate: allTerminate(all) };
}

async function runParallel(batch: ToolBatch): Promise<ToolBatchOutcome> {
  const calls = batch.toolCalls;
  const outcomes: (Finished | Promise<Finished>)[] = new Array(calls.length);
  const ready: (Ready | undefined)[] = new Array(calls.length);
  let cause: SkipCause | undefined;
  // Preflight one by one (hooks see calls in order); immediate outcomes end right away.
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i] as AgentToolCall;
    cause ??= await batch.checkBoundary();
    if (cause) {
      const finished = skipped(cause);
      outcomes[i] = finished;
      await emitSkipped(batch, call, finished);
      continue;
    }
    await send(batch.emit, {
      type: "tool_execution_start",
      toolCallId: call.id,
      toolName: call.name,
      args: call.arguments,
    });
    const prepared = await prepare(batch, call);
    if ("tool" in prepared) {
      ready[i] = prepared;
    } else {
      outcomes[i] = prepared;
      await emitEnd(batch, call, prepared);
    }
  }
  // Run the prepared calls concurrently; each one's end is emitted as soon as it finishes. A call waiting for
  // approval waits on its own: the others run meanwhile.
  for (let i = 0; i < calls.length; i++) {
    const prepared = ready[i];
    if (!prepared) continue;
    const call = calls[i] as AgentToolCall;
    outcomes[i] = runReady(batch, call, prepared).then(async (finished) => {
      await emitEnd(batch, call, finished);
      return finished;
    });
  }
  const all = await Promise.all(outcomes);
  // Result messages keep the assistant's order, whatever the completion order was.
  const results: ToolResultMessage[] = [];
  for (let i = 0; i < calls.length; i++) {
    const message = toMessage(calls[i] as AgentToolCall, all[i] as Finished);
    results.push(message);
    await emitResultMessage(batch, message);
  }
  return { results, terminate: allTerminate(all) };
}

/** Executes a batch in the configured mode; a tool marked `sequential` makes the whole batch sequential. */
export function executeToolCalls(batch: ToolBatch): Promise<ToolBatchOutcome> {
  let sequential = batch.config.toolExecution === "sequential";
  if (!sequential) {
    for (const call of batch.toolCalls) {
      if (findTool(batch.context, call.name)?.executionMode === "sequential") {
        sequential = true;
        break;
      }
    }
  }
  return sequential ? runSequential(batch) : runParallel(batch);
}
