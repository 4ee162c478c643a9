/**
 * pi's SDK entry points for the non-interactive modes, over an `AgentSessionRuntime`: `runPrintMode` (prompts in
 * order, the final answer on stdout or every event as JSON lines) and `runRpcMode` (the JSON-lines protocol of
 * `tiller --mode rpc` on stdin/stdout). `main` runs the CLI itself.
 */
import type { ImageContent } from "@tiller/ai";
import { eventForWire } from "../cli/event-json.js";
import { toJsonLine } from "../cli/jsonl.js";
import { assistantText, lastAssistant } from "../cli/print-mode.js";
import { serveRpc } from "../cli/rpc-mode.js";
import { submit } from "../cli/session-setup.js";
import type { ExtensionFactory } from "../extensions/types.js";
import type { AgentSessionRuntime } from "./agent-session-runtime.js";
import { setupOf } from "./setup-of.js";

export interface PrintModeOptions {
  /** `text`: the final answer on stdout; `json`: a session header line, then every event as a JSON line. */
  mode: "text" | "json";
  /** Prompts sent after `initialMessage`, each once the previous run ended. */
  messages?: string[];
  initialMessage?: string;
  initialImages?: ImageContent[];
}

/** Runs the prompts; resolves with 0, or 1 when the last answer failed or was aborted. */
export async function runPrintMode(runtimeHost: AgentSessionRuntime, options: PrintModeOptions): Promise<number> {
  const setup = setupOf(runtimeHost);
  const { session } = setup;
  const write = (v: unknown) => process.stdout.write(toJsonLine(v));
  const unsubscribe =
    options.mode === "json"
      ? session.subscribe(
          (event) => {
            write(eventForWire(event));
          },
          { tillerEvents: true },
        )
      : undefined;
  if (options.mode === "json") {
    write({
      type: "session",
      id: session.sessionId,
      file: session.sessionFile ?? null,
      cwd: runtimeHost.cwd,
      model: { provider: session.model.provider, id: session.model.id },
      thinkingLevel: session.thinkingLevel,
    });
  }
  try {
    const prompts: Array<{ text: string; images?: ImageContent[] }> = [];
    if (options.initialMessage !== undefined)
      prompts.push({
        text: options.initialMessage,
        ...(options.initialImages ? { images: options.initialImages } : {}),
      });
    for (const m of options.messages ?? []) prompts.push({ text: m });
    for (const p of prompts) await submit(setup, p.text, undefined, p.images);
    const last = lastAssistant(setup);
    const failed = !last || last.stopReason === "error" || last.stopReason === "aborted";
    if (options.mode === "text") {
      if (last && !failed) {
        const out = assistantText(last);
        process.stdout.write(out.endsWith("\n") ? out : `${out}\n`);
      } else if (prompts.length > 0) {
        process.stderr.write(`tiller: ${last?.errorMessage ?? (last ? last.stopReason : "no reply")}\n`);
      }
    }
    return prompts.length === 0 || !failed ? 0 : 1;
  } finally {
    unsubscribe?.();
  }
}

/** Serves the RPC protocol until stdin closes, then disposes the runtime and exits the process. */
export async function runRpcMode(runtimeHost: AgentSessionRuntime): Promise<never> {
  await serveRpc(setupOf(runtimeHost));
  await runtimeHost.dispose();
  process.exit(0);
}

export interface MainOptions {
  /** Accepted for pi's signature; the Tiller CLI loads extensions from files (`--extension`, folders) only. */
  extensionFactories?: ExtensionFactory[];
}

/** Runs the `tiller` CLI with `args` (without the node and script paths); sets `process.exitCode`. */
export async function main(args: string[], _options?: MainOptions): Promise<void> {
  // Loaded on demand: the CLI pulls in the terminal UI, which an SDK user of this package may never need.
  const cli = await import("../cli/main.js");
  process.exitCode = await cli.main(args);
}
