/**
 * Approvals: a tool call that needs a person's yes waits for a decision before it runs. This file holds the
 * rules (which request applies, what a denial tells the model), the wait itself (timeout, abort, the handler),
 * and `ApprovalBroker`, the Agent's handler: pending requests by id, resolved by `Agent.resolveApproval`, and the
 * keys `allow-always` remembered.
 */
import type {
  AgentEventSink,
  AgentTool,
  ApprovalBlock,
  ApprovalDecision,
  ApprovalEndCause,
  ApprovalHandler,
  ApprovalRequest,
  ApprovalResolution,
  BeforeToolCallContext,
  PendingApproval,
  ResumedApproval,
} from "./types.js";

/** The three decisions, in the order UIs offer them. */
export const APPROVAL_DECISIONS: readonly ApprovalDecision[] = ["allow-once", "allow-always", "deny"];

export function isApprovalDecision(value: unknown): value is ApprovalDecision {
  return value === "allow-once" || value === "allow-always" || value === "deny";
}

/** The request a plain `requiresApproval: true` stands for. */
export function defaultApprovalRequest(toolName: string): ApprovalRequest {
  return { title: `Allow the tool "${toolName}" to run?` };
}

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;

/**
 * What applies to a call: the `beforeToolCall` hook's request first, else the tool's own rule. Undefined when
 * the call may run without asking. A rule that throws blocks the call (fail closed).
 */
export async function approvalRequirement(
  tool: AnyTool,
  fromHook: ApprovalRequest | undefined,
  context: BeforeToolCallContext,
): Promise<ApprovalRequest | ApprovalBlock | undefined> {
  if (fromHook) return fromHook;
  const rule = tool.requiresApproval;
  if (rule === undefined || rule === false) return undefined;
  if (rule === true) return defaultApprovalRequest(tool.name);
  let answer: Awaited<ReturnType<typeof rule>>;
  try {
    answer = await rule(context.args, context);
  } catch (error) {
    return {
      block: true,
      reason: `The approval rule of "${tool.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (answer === false) return undefined;
  if (answer === true) return defaultApprovalRequest(tool.name);
  return answer;
}

export function isBlock(value: ApprovalRequest | ApprovalBlock): value is ApprovalBlock {
  return (value as ApprovalBlock).block === true;
}

/** The key an `allow-always` remembers for this request, or undefined when the agent remembers nothing. */
export function alwaysKeyOf(request: ApprovalRequest, toolName: string): string | undefined {
  if (request.alwaysKey === false) return undefined;
  return request.alwaysKey ?? toolName;
}

/** What the model reads when a call was not allowed. */
export function notAllowedText(approval: PendingApproval, resolution: ApprovalResolution, cause: ApprovalEndCause) {
  const name = approval.toolCall.name;
  const why = resolution.reason ? ` Reason: ${resolution.reason}` : "";
  switch (cause) {
    case "timeout":
      return `Denied: no decision on running "${name}" within ${approval.request.timeoutMs} ms, so it was not run.`;
    case "aborted":
      // The signal is the turn's: an abort, or steering with `steeringDelivery: "abort"`.
      return `Not run: "${name}" was interrupted (aborted, or a new message arrived) while waiting for approval.`;
    case "unavailable":
      return `Denied: "${name}" needs approval and nobody can be asked here, so it was not run.${why}`;
    default:
      return `Denied: the user did not allow running "${name}".${why}`;
  }
}

export function newApprovalId(): string {
  return `approval_${crypto.randomUUID()}`;
}

export function makePendingApproval(
  toolCall: PendingApproval["toolCall"],
  args: PendingApproval["args"],
  request: ApprovalRequest,
  assistantMessage: PendingApproval["assistantMessage"],
): PendingApproval {
  const createdAt = Date.now();
  const approval: PendingApproval = { id: newApprovalId(), toolCall, args, request, assistantMessage, createdAt };
  if (request.timeoutMs !== undefined) approval.expiresAt = createdAt + request.timeoutMs;
  return approval;
}

/** How a wait ended; `allowed` decides whether the call runs. */
export interface ApprovalOutcome {
  allowed: boolean;
  resolution: ApprovalResolution;
  cause: ApprovalEndCause;
}

/** Emits `tool_approval_end` and records an `allow-always`. */
export async function finishApproval(
  emit: AgentEventSink,
  handler: ApprovalHandler | undefined,
  approval: PendingApproval,
  resolution: ApprovalResolution,
  cause: ApprovalEndCause,
): Promise<ApprovalOutcome> {
  const allowed = resolution.decision !== "deny";
  let remembered: string | undefined;
  if (resolution.decision === "allow-always") {
    remembered = alwaysKeyOf(approval.request, approval.toolCall.name);
    if (remembered !== undefined) handler?.rememberAlways?.(remembered);
  }
  const pending = emit({
    type: "tool_approval_end",
    approval,
    resolution,
    cause,
    ...(remembered !== undefined ? { remembered } : {}),
  });
  if (pending) await pending;
  return { allowed, resolution, cause };
}

/**
 * Announces the request and waits for its decision: the handler's, or the timeout's (`timeoutBehavior`), or an
 * abort of `signal` (the call does not run). Never throws: a failing handler counts as a denial.
 */
export async function awaitApproval(
  emit: AgentEventSink,
  handler: ApprovalHandler | undefined,
  approval: PendingApproval,
  signal: AbortSignal | undefined,
): Promise<ApprovalOutcome> {
  if (!handler) {
    return finishApproval(emit, handler, approval, { decision: "deny" }, "unavailable");
  }
  const { request } = approval;
  const done = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  // The wait is set up (and the handler holds the request) before it is announced, so a listener may decide it
  // while handling the announcement.
  const ended = new Promise<{ resolution: ApprovalResolution; cause: ApprovalEndCause }>((resolve) => {
    if (signal?.aborted) return resolve({ resolution: { decision: "deny", by: "abort" }, cause: "aborted" });
    onAbort = () => resolve({ resolution: { decision: "deny", by: "abort" }, cause: "aborted" });
    signal?.addEventListener("abort", onAbort, { once: true });
    if (request.timeoutMs !== undefined) {
      const decision: ApprovalDecision = request.timeoutBehavior === "allow" ? "allow-once" : "deny";
      timer = setTimeout(
        () => resolve({ resolution: { decision, by: "timeout" }, cause: "timeout" }),
        request.timeoutMs,
      );
    }
    handler.request(approval, done.signal).then(
      (resolution) => resolve({ resolution, cause: "decided" }),
      (error: unknown) =>
        resolve({
          resolution: { decision: "deny", reason: error instanceof Error ? error.message : String(error) },
          cause: "decided",
        }),
    );
  });
  const announced = emit({ type: "tool_approval_request", approval });
  if (announced) await announced;
  const { resolution, cause } = await ended;
  if (timer) clearTimeout(timer);
  if (onAbort) signal?.removeEventListener("abort", onAbort);
  done.abort();
  return finishApproval(emit, handler, approval, resolution, cause);
}

/**
 * The decision `timeoutBehavior` makes for an approval past its `expiresAt` (e.g. one found pending after a
 * restart), ready for `resumeToolCalls`; undefined while it has not expired or has no timeout.
 */
export function expiredApproval(approval: PendingApproval, now: number = Date.now()): ResumedApproval | undefined {
  if (approval.expiresAt === undefined || now < approval.expiresAt) return undefined;
  const decision: ApprovalDecision = approval.request.timeoutBehavior === "allow" ? "allow-once" : "deny";
  return { approval, decision, by: "timeout", cause: "timeout" };
}

/** Options of `Agent.resolveApproval`. */
export interface ResolveApprovalOptions {
  /** Who decided (shown in `tool_approval_end`). */
  by?: string;
  /** Why; a denial's reason reaches the model. */
  reason?: string;
}

/** Checks a decision against what the request offers; throws a clear error otherwise. */
export function checkDecision(request: ApprovalRequest, decision: unknown): ApprovalDecision {
  if (!isApprovalDecision(decision)) {
    throw new Error(`Unknown approval decision ${JSON.stringify(decision)} (use ${APPROVAL_DECISIONS.join(", ")})`);
  }
  const offered = request.decisions;
  if (offered && !offered.includes(decision)) {
    throw new Error(`The decision "${decision}" is not offered for this approval (offered: ${offered.join(", ")})`);
  }
  return decision;
}

interface Waiting {
  approval: PendingApproval;
  resolve: (resolution: ApprovalResolution) => void;
}

/** The Agent's approval handler: pending requests by id, and the keys `allow-always` remembered. */
export class ApprovalBroker implements ApprovalHandler {
  readonly #waiting = new Map<string, Waiting>();
  readonly #always: Set<string>;

  constructor(alwaysAllowed: Iterable<string> = []) {
    this.#always = new Set(alwaysAllowed);
  }

  isAllowedAlways(key: string): boolean {
    return this.#always.has(key);
  }

  rememberAlways(key: string): void {
    this.#always.add(key);
  }

  forget(key?: string): void {
    if (key === undefined) this.#always.clear();
    else this.#always.delete(key);
  }

  alwaysAllowed(): string[] {
    return [...this.#always];
  }

  request(approval: PendingApproval, signal: AbortSignal): Promise<ApprovalResolution> {
    return new Promise((resolve) => {
      this.#waiting.set(approval.id, { approval, resolve });
      signal.addEventListener("abort", () => this.#waiting.delete(approval.id), { once: true });
    });
  }

  pending(): PendingApproval[] {
    return [...this.#waiting.values()].map((w) => w.approval);
  }

  /** False when no approval with this id is waiting (decided, timed out, aborted, or unknown). */
  resolve(id: string, decision: ApprovalDecision, options: ResolveApprovalOptions = {}): boolean {
    const waiting = this.#waiting.get(id);
    if (!waiting) return false;
    const checked = checkDecision(waiting.approval.request, decision);
    this.#waiting.delete(id);
    const resolution: ApprovalResolution = { decision: checked };
    if (options.by !== undefined) resolution.by = options.by;
    if (options.reason !== undefined) resolution.reason = options.reason;
    waiting.resolve(resolution);
    return true;
  }
}
