/**
 * Abort wrapping: a tool run under a signal rejects promptly with an "aborted" error when the signal fires,
 * even if the tool itself ignores its signal (its work is abandoned, its late result dropped).
 */
import type { AgentTool } from "@tiller/agent";

/** Error thrown by a wrapped tool whose run was aborted. */
export class ToolAbortedError extends Error {
  constructor(toolName: string) {
    super(`Tool ${toolName} aborted`);
    this.name = "ToolAbortedError";
  }
}

function anySignal(signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  return AbortSignal.any(present);
}

/** Wrap `tool` so it honours `runSignal` (and the per-call signal) whatever its implementation does. */
export function wrapToolWithAbort<T extends AgentTool>(tool: T, runSignal?: AbortSignal): T {
  return {
    ...tool,
    execute: (toolCallId, params, signal, onUpdate) => {
      const combined = anySignal([runSignal, signal]);
      if (!combined) return tool.execute(toolCallId, params, signal, onUpdate);
      if (combined.aborted) return Promise.reject(new ToolAbortedError(tool.name));
      return new Promise((resolve, reject) => {
        const onAbort = () => reject(new ToolAbortedError(tool.name));
        combined.addEventListener("abort", onAbort, { once: true });
        let running: ReturnType<T["execute"]>;
        try {
          // Updates after the abort would describe a run the agent already closed.
          const guarded =
            onUpdate && ((partial: Parameters<typeof onUpdate>[0]) => !combined.aborted && onUpdate(partial));
          running = tool.execute(toolCallId, params, combined, guarded) as ReturnType<T["execute"]>;
        } catch (err) {
          combined.removeEventListener("abort", onAbort);
          return reject(err);
        }
        running.then(
          (result) => {
            combined.removeEventListener("abort", onAbort);
            resolve(result);
          },
          (err) => {
            combined.removeEventListener("abort", onAbort);
            reject(err);
          },
        );
      });
    },
  };
}
