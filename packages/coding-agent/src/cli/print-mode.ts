/**
 * `tiller -p "prompt"`: runs one prompt and prints the final assistant text. `--mode json`: the same run, with
 * every session event written to stdout as one JSON line (a `session` header first).
 */
import type { AssistantMessage } from "@tiller/ai";
import type { CliArgs } from "./args.js";
import { CliUsageError } from "./errors.js";
import { eventForWire } from "./event-json.js";
import { toJsonLine } from "./jsonl.js";
import { type CliSetup, setupSession, shutdown, submit } from "./session-setup.js";

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The prompt: the words on the command line, or (when there are none) everything piped on stdin. */
async function promptText(args: CliArgs): Promise<string> {
  if (args.messages.length > 0) return args.messages.join(" ");
  return (await readStdin()).trim();
}

export function lastAssistant(setup: Pick<CliSetup, "session">): AssistantMessage | undefined {
  const messages = setup.session.messages;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: string };
    if (m.role === "assistant") return m as AssistantMessage;
  }
  return undefined;
}

export function assistantText(m: AssistantMessage): string {
  return m.content
    .filter((p): p is { type: "text"; text: string } => p.type === "text")
    .map((p) => p.text)
    .join("");
}

async function start(args: CliArgs): Promise<{ setup: CliSetup; text: string } | number> {
  const noPrompt = () => {
    process.stderr.write('tiller: no prompt given (pass it as an argument or on stdin; "tiller --help" for usage)\n');
    return 2;
  };
  // A word after an extension's flag may be its value or part of the prompt: only the extensions can tell.
  const early = args.extensionFlags.some((f) => f.next) ? undefined : await promptText(args);
  if (early === "") return noPrompt();
  let setup: CliSetup;
  try {
    setup = await setupSession(args, { hasUI: false });
  } catch (err) {
    if (err instanceof CliUsageError) {
      process.stderr.write(`tiller: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const text = early ?? (await promptText(args));
  if (!text) {
    await shutdown(setup);
    return noPrompt();
  }
  for (const n of setup.notes) process.stderr.write(`tiller: ${n.message}\n`);
  setup.extensions.onError((e) =>
    process.stderr.write(`tiller: extension ${e.extensionPath} (${e.event}): ${e.error}\n`),
  );
  return { setup, text };
}

/** Exit code from the last assistant message: 0 on success, 1 on a provider error or abort. */
function finish(setup: CliSetup): { code: number; message: AssistantMessage | undefined } {
  const m = lastAssistant(setup);
  if (!m) return { code: 1, message: undefined };
  if (m.stopReason === "error" || m.stopReason === "aborted") return { code: 1, message: m };
  return { code: 0, message: m };
}

export async function runPrintMode(args: CliArgs): Promise<number> {
  const started = await start(args);
  if (typeof started === "number") return started;
  const { setup, text } = started;
  const stop = () => setup.session.abort().catch(() => {});
  process.once("SIGINT", stop);
  try {
    const r = await submit(setup, text, undefined);
    if (r.kind === "handled") return 0;
    const { code, message } = finish(setup);
    if (message && code === 0) {
      const out = assistantText(message);
      process.stdout.write(out.endsWith("\n") ? out : `${out}\n`);
    } else {
      process.stderr.write(`tiller: ${message?.errorMessage ?? (message ? message.stopReason : "no reply")}\n`);
    }
    return code;
  } finally {
    process.off("SIGINT", stop);
    await shutdown(setup);
  }
}

export async function runJsonMode(args: CliArgs): Promise<number> {
  const started = await start(args);
  if (typeof started === "number") return started;
  const { setup, text } = started;
  const { session } = setup;
  const write = (v: unknown) => process.stdout.write(toJsonLine(v));
  write({
    type: "session",
    id: session.sessionId,
    file: session.sessionFile ?? null,
    cwd: process.cwd(),
    model: { provider: session.model.provider, id: session.model.id },
    thinkingLevel: session.thinkingLevel,
  });
  // Every event, approvals too: the JSON stream shows what the run did.
  const unsubscribe = session.subscribe(
    (event) => {
      write(eventForWire(event));
    },
    { tillerEvents: true },
  );
  setup.extensions.onError((e) => write({ type: "extension_error", ...e }));
  const stop = () => session.abort().catch(() => {});
  process.once("SIGINT", stop);
  try {
    await submit(setup, text, undefined);
    return finish(setup).code;
  } finally {
    process.off("SIGINT", stop);
    unsubscribe();
    await shutdown(setup);
  }
}
