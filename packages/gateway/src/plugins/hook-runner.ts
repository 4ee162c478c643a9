/**
 * Runs plugin hook handlers. Handlers run highest priority first (same priority: registration order).
 * Observe-only hooks run in parallel; modifying hooks run in sequence and fold their results; a `block`/`cancel`
 * of `true` is terminal (lower-priority handlers are skipped) and a later `false` never clears it; claiming hooks
 * stop at the first `handled: true`. A throwing handler is logged and skipped (fail-open).
 */
import type {
  BeforeAgentReplyResult,
  BeforeAgentStartResult,
  BeforeInstallResult,
  BeforeModelResolveResult,
  BeforePromptBuildResult,
  BeforeToolCallResult,
  MessageSendingResult,
  ObserveOnly,
  PluginHookContext,
  PluginHookEventMap,
  PluginHookName,
  PluginHookRegistration,
  PluginHookResultMap,
  ToolResultPersistEvent,
  ToolResultPersistResult,
} from "./hook-types.js";

/** Where the runner reports skipped handlers and decisions. */
export interface HookLogger {
  warn(message: string): void;
  debug?(message: string): void;
}

const consoleLogger: HookLogger = { warn: (m) => console.warn(m) };

type ObserveOnlyHook = {
  [K in PluginHookName]: PluginHookResultMap[K] extends ObserveOnly ? K : never;
}[PluginHookName];

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function call(reg: PluginHookRegistration, event: unknown, ctx: PluginHookContext): unknown {
  return (reg.handler as (e: unknown, c: PluginHookContext) => unknown)(event, ctx);
}

function isPromiseLike(v: unknown): v is PromiseLike<unknown> {
  return typeof v === "object" && v !== null && typeof (v as { then?: unknown }).then === "function";
}

function joinText(a: string | undefined, b: string | undefined): string | undefined {
  if (b === undefined || b === "") return a;
  if (a === undefined || a === "") return b;
  return `${a}\n\n${b}`;
}

/** Folds `before_model_resolve` results: the first (highest-priority) defined value of each field wins. */
function mergeModelResolve(acc: BeforeModelResolveResult, next: BeforeModelResolveResult): BeforeModelResolveResult {
  return {
    providerOverride: acc.providerOverride ?? next.providerOverride,
    modelOverride: acc.modelOverride ?? next.modelOverride,
  };
}

/** Folds `before_prompt_build` results: `systemPrompt` first-defined wins, context fields concatenate in order. */
function mergePromptBuild(acc: BeforePromptBuildResult, next: BeforePromptBuildResult): BeforePromptBuildResult {
  return {
    systemPrompt: acc.systemPrompt ?? next.systemPrompt,
    prependContext: joinText(acc.prependContext, next.prependContext),
    prependSystemContext: joinText(acc.prependSystemContext, next.prependSystemContext),
    appendSystemContext: joinText(acc.appendSystemContext, next.appendSystemContext),
  };
}

export class HookRunner {
  private readonly byHook = new Map<PluginHookName, PluginHookRegistration[]>();
  private readonly logger: HookLogger;

  constructor(registrations: readonly PluginHookRegistration[] = [], logger: HookLogger = consoleLogger) {
    this.logger = logger;
    for (const reg of registrations) this.add(reg);
  }

  /** Adds one handler, keeping each hook's list sorted (stable: equal priorities keep insertion order). */
  add(reg: PluginHookRegistration): void {
    const list = this.byHook.get(reg.hookName) ?? [];
    let i = list.length;
    while (i > 0 && (list[i - 1] as PluginHookRegistration).priority < reg.priority) i--;
    list.splice(i, 0, reg);
    this.byHook.set(reg.hookName, list);
  }

  hasHooks(name: PluginHookName): boolean {
    return (this.byHook.get(name)?.length ?? 0) > 0;
  }

  /** Handlers of one hook in the order they run (for diagnostics and tests). */
  handlers(name: PluginHookName): readonly PluginHookRegistration[] {
    return this.byHook.get(name) ?? [];
  }

  private list(name: PluginHookName): readonly PluginHookRegistration[] {
    return this.byHook.get(name) ?? [];
  }

  private failed(name: PluginHookName, reg: PluginHookRegistration, err: unknown): void {
    this.logger.warn(`[hooks] ${name} handler of plugin ${reg.pluginId} failed: ${errorText(err)}; skipped`);
  }

  /** Observe-only hooks: every handler runs concurrently; the call resolves when all settle. */
  async runObserver<K extends ObserveOnlyHook>(name: K, event: PluginHookEventMap[K], ctx: PluginHookContext = {}) {
    const list = this.list(name);
    if (list.length === 0) return;
    await Promise.all(
      list.map(async (reg) => {
        try {
          await call(reg, event, ctx);
        } catch (err) {
          this.failed(name, reg, err);
        }
      }),
    );
  }

  /**
   * Sequential modifying run. `merge` folds each defined result into the accumulator; when `stop(acc)` holds the
   * remaining (lower-priority) handlers are skipped.
   */
  private async runSequential<K extends PluginHookName, R extends object>(
    name: K,
    event: PluginHookEventMap[K],
    ctx: PluginHookContext,
    initial: R,
    merge: (acc: R, next: NonNullable<PluginHookResultMap[K]>, reg: PluginHookRegistration) => R,
    stop: (acc: R) => boolean,
  ): Promise<R> {
    let acc = initial;
    const list = this.list(name);
    for (const [i, reg] of list.entries()) {
      let result: PluginHookResultMap[K] | undefined;
      try {
        result = (await call(reg, event, ctx)) as PluginHookResultMap[K] | undefined;
      } catch (err) {
        this.failed(name, reg, err);
        continue;
      }
      if (result === undefined || result === null || typeof result !== "object") continue;
      acc = merge(acc, result as NonNullable<PluginHookResultMap[K]>, reg);
      if (stop(acc)) {
        const skipped = list.length - i - 1;
        if (skipped > 0) {
          this.logger.debug?.(
            `[hooks] ${name} decided by ${reg.pluginId} (priority=${reg.priority}); skipping ${skipped} remaining handler(s)`,
          );
        }
        break;
      }
    }
    return acc;
  }

  /** Provider/model override before the model is resolved. */
  async runBeforeModelResolve(
    event: PluginHookEventMap["before_model_resolve"],
    ctx: PluginHookContext = {},
  ): Promise<BeforeModelResolveResult> {
    return this.runSequential("before_model_resolve", event, ctx, {}, mergeModelResolve, () => false);
  }

  async runBeforePromptBuild(
    event: PluginHookEventMap["before_prompt_build"],
    ctx: PluginHookContext = {},
  ): Promise<BeforePromptBuildResult> {
    return this.runSequential("before_prompt_build", event, ctx, {}, mergePromptBuild, () => false);
  }

  /** Legacy hook: both merges apply. */
  async runBeforeAgentStart(
    event: PluginHookEventMap["before_agent_start"],
    ctx: PluginHookContext = {},
  ): Promise<BeforeAgentStartResult> {
    return this.runSequential(
      "before_agent_start",
      event,
      ctx,
      {} as BeforeAgentStartResult,
      (acc, next) => ({ ...mergeModelResolve(acc, next), ...mergePromptBuild(acc, next) }),
      () => false,
    );
  }

  /** Claiming: the first handler returning `handled: true` owns the turn; the rest do not run. */
  async runBeforeAgentReply(
    event: PluginHookEventMap["before_agent_reply"],
    ctx: PluginHookContext = {},
  ): Promise<(BeforeAgentReplyResult & { pluginId: string }) | undefined> {
    const claim = await this.runSequential<
      "before_agent_reply",
      { claim?: BeforeAgentReplyResult & { pluginId: string } }
    >(
      "before_agent_reply",
      event,
      ctx,
      {},
      (acc, next, reg) => (next.handled === true ? { claim: { ...next, pluginId: reg.pluginId } } : acc),
      (acc) => acc.claim !== undefined,
    );
    return claim.claim;
  }

  /**
   * `block: true` is terminal and sticky; `block: false` is a no-op. `params` from the last handler that sets them
   * wins. A blocked result carries the blocking plugin's id and reason.
   */
  async runBeforeToolCall(
    event: PluginHookEventMap["before_tool_call"],
    ctx: PluginHookContext = {},
  ): Promise<BeforeToolCallResult & { blockedBy?: string }> {
    return this.runSequential<"before_tool_call", BeforeToolCallResult & { blockedBy?: string }>(
      "before_tool_call",
      event,
      ctx,
      {},
      (acc, next, reg) => {
        if (acc.block === true) return acc;
        const merged = { ...acc };
        // Once a plugin asked for approval, the arguments it asked about are the ones that run.
        if (next.params !== undefined && !acc.requireApproval) merged.params = next.params;
        if (next.requireApproval && !acc.requireApproval) {
          merged.requireApproval = { ...next.requireApproval, pluginId: reg.pluginId };
        }
        if (next.block === true) {
          merged.block = true;
          merged.blockReason = next.blockReason ?? `blocked by plugin ${reg.pluginId}`;
          merged.blockedBy = reg.pluginId;
        }
        return merged;
      },
      (acc) => acc.block === true,
    );
  }

  /** `block: true` is terminal and sticky; findings from every handler that ran are concatenated. */
  async runBeforeInstall(
    event: PluginHookEventMap["before_install"],
    ctx: PluginHookContext = {},
  ): Promise<BeforeInstallResult & { blockedBy?: string; findings: string[] }> {
    return this.runSequential<"before_install", BeforeInstallResult & { blockedBy?: string; findings: string[] }>(
      "before_install",
      event,
      ctx,
      { findings: [] },
      (acc, next, reg) => {
        const merged = { ...acc, findings: [...acc.findings, ...(next.findings ?? [])] };
        if (next.block === true && acc.block !== true) {
          merged.block = true;
          merged.blockReason = next.blockReason ?? `blocked by plugin ${reg.pluginId}`;
          merged.blockedBy = reg.pluginId;
        }
        return merged;
      },
      (acc) => acc.block === true,
    );
  }

  /** `cancel: true` is terminal and sticky; `content` from the last handler that sets it wins. */
  async runMessageSending(
    event: PluginHookEventMap["message_sending"],
    ctx: PluginHookContext = {},
  ): Promise<MessageSendingResult & { cancelledBy?: string }> {
    return this.runSequential<"message_sending", MessageSendingResult & { cancelledBy?: string }>(
      "message_sending",
      event,
      ctx,
      {},
      (acc, next, reg) => {
        if (acc.cancel === true) return acc;
        const merged = { ...acc };
        if (typeof next.content === "string") merged.content = next.content;
        if (next.cancel === true) {
          merged.cancel = true;
          merged.cancelledBy = reg.pluginId;
        }
        return merged;
      },
      (acc) => acc.cancel === true,
    );
  }

  /**
   * Synchronous chain over the message written to the transcript. Each handler sees the previous handler's
   * replacement. A handler returning a Promise is ignored with a warning (the write cannot wait).
   */
  runToolResultPersist(event: ToolResultPersistEvent, ctx: PluginHookContext = {}): ToolResultPersistEvent["message"] {
    let message = event.message;
    for (const reg of this.list("tool_result_persist")) {
      let result: ToolResultPersistResult | undefined;
      try {
        result = call(reg, { ...event, message }, ctx) as ToolResultPersistResult | undefined;
      } catch (err) {
        this.failed("tool_result_persist", reg, err);
        continue;
      }
      if (isPromiseLike(result)) {
        this.logger.warn(
          `[hooks] tool_result_persist handler of plugin ${reg.pluginId} returned a Promise; it must be synchronous (ignored)`,
        );
        continue;
      }
      if (result?.message) message = result.message;
    }
    return message;
  }
}
