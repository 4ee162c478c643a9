/**
 * The offline model (provider `offline`, id `tiller-offline`): what Tiller uses when no provider is
 * configured, so the main command works on a fresh machine. It is deterministic, says in every reply that it
 * is offline and how to configure a real model, and still drives the agent loop: a plain request to run one of
 * the agent's tools becomes that tool call, and the tool's result is then reported back.
 */
import { createEmptyUsage } from "../error-stream.js";
import { type AssistantMessageEventStream, createAssistantMessageEventStream } from "../event-stream.js";
import { getModel } from "../models.js";
import type {
  Api,
  AssistantMessage,
  Context,
  Model,
  SimpleStreamOptions,
  StreamOptions,
  TextContent,
  ToolResultMessage,
} from "../types.js";
import { matchOfflineTool } from "./offline-intent.js";
import { estimateTokens, serializeContext, streamScriptedMessage } from "./scripted-stream.js";

export { matchOfflineTool, type OfflineToolIntent, parseOfflineRequest } from "./offline-intent.js";

/** Every offline reply starts with this label. */
export const OFFLINE_LABEL = "[offline model]";

/** How to get a real model; part of every conversational offline reply. */
export const OFFLINE_SETUP_HINT = [
  "To use a real model, set one of these environment variables and start Tiller again:",
  "  OPENAI_API_KEY     (OpenAI)",
  "  ANTHROPIC_API_KEY  (Anthropic)",
  "  GEMINI_API_KEY     (Google Gemini)",
  "or describe a local OpenAI-compatible server (Ollama, llama.cpp, vLLM, LM Studio), for example",
  'http://127.0.0.1:11434/v1, in ~/.tiller/models.json (api "openai-completions").',
].join("\n");

const SHORT_HINT =
  "(Offline: set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, or a local server in models.json.)";

/** Maximum lines of a tool result quoted back. */
const SUMMARY_LINES = 20;
const SUMMARY_LINE_CHARS = 200;

/** The offline model from the catalog (a fresh copy the caller may modify). */
export function getOfflineModel(): Model<"offline"> {
  const model = getModel("offline", "tiller-offline");
  return { ...model, input: [...model.input], cost: { ...model.cost } } as Model<"offline">;
}

/** True for models served by the offline provider. */
export function isOfflineModel(model: Pick<Model<Api>, "api" | "provider">): boolean {
  return model.api === "offline" || model.provider === "offline";
}

function textOf(content: string | readonly { type: string; text?: string }[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((b): b is TextContent => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

function message(content: AssistantMessage["content"], stopReason: "stop" | "toolUse"): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: "offline",
    provider: "offline",
    model: "tiller-offline",
    usage: createEmptyUsage(),
    stopReason,
    // Fixed so the reply is byte-for-byte reproducible; the stream stamps the real time.
    timestamp: 0,
  };
}

function describeArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
}

function summarizeToolResult(result: ToolResultMessage): string {
  const text = textOf(result.content).replace(/\s+$/, "");
  const images = result.content.filter((b) => b.type === "image").length;
  const head = result.isError
    ? `${OFFLINE_LABEL} The \`${result.toolName}\` tool reported an error`
    : `${OFFLINE_LABEL} The \`${result.toolName}\` tool finished`;
  if (!text) {
    const what = images ? `${images} image${images === 1 ? "" : "s"} and no text` : "no output";
    return `${head} with ${what}.\n${SHORT_HINT}`;
  }
  const lines = text.split("\n");
  const shown = lines
    .slice(0, SUMMARY_LINES)
    .map((l) => (l.length > SUMMARY_LINE_CHARS ? `${l.slice(0, SUMMARY_LINE_CHARS)}…` : l));
  const more = lines.length > SUMMARY_LINES ? `\n… ${lines.length - SUMMARY_LINES} more lines` : "";
  const count = `${lines.length} line${lines.length === 1 ? "" : "s"}`;
  return `${head} (${count}):\n\`\`\`\n${shown.join("\n")}\n\`\`\`${more}\n${SHORT_HINT}`;
}

function helpText(request: string, context: Context): string {
  const tools = (context.tools ?? []).map((t) => t.name);
  const examples: string[] = [];
  if (tools.includes("read")) examples.push('"read README.md"');
  if (tools.includes("ls")) examples.push('"list src"');
  if (tools.some((t) => t === "bash" || t === "exec")) examples.push('"run `ls -la`"');
  if (tools.includes("find")) examples.push('"find *.ts"');
  if (tools.includes("grep")) examples.push('"grep TODO"');
  const can = examples.length
    ? `I can still run a tool when asked plainly, for example ${examples.join(", ")}.`
    : "No tools are available in this session, so I can only show this message.";
  const opener = request.trim()
    ? "No language model is configured, so I cannot answer that."
    : "No language model is configured.";
  return `${OFFLINE_LABEL} ${opener} ${can}\n\n${OFFLINE_SETUP_HINT}`;
}

/**
 * The reply the offline model gives to `context`, as a complete message (deterministic: the same context
 * always yields the same reply). Tool call ids are derived from the transcript length.
 */
export function planOfflineReply(context: Context): AssistantMessage {
  const last = context.messages.at(-1);
  if (last?.role === "toolResult") return message([{ type: "text", text: summarizeToolResult(last) }], "stop");
  const request = last?.role === "user" ? textOf(last.content) : "";
  const match = request ? matchOfflineTool(request, context.tools ?? []) : undefined;
  if (!match) return message([{ type: "text", text: helpText(request, context) }], "stop");
  return message(
    [
      { type: "text", text: `${OFFLINE_LABEL} Running \`${match.tool}\` (${describeArgs(match.arguments)}).` },
      {
        type: "toolCall",
        id: `offline_call_${context.messages.length}`,
        name: match.tool,
        arguments: match.arguments,
      },
    ],
    "toolUse",
  );
}

/** Stream function of the `offline` api. Never touches the network; usage is estimated, cost is zero. */
export function streamOffline(
  model: Model<Api>,
  context: Context,
  options?: StreamOptions,
): AssistantMessageEventStream {
  const stream = createAssistantMessageEventStream();
  const usage = createEmptyUsage();
  usage.input = estimateTokens(serializeContext(context));
  void streamScriptedMessage(stream, model, planOfflineReply(context), { signal: options?.signal, usage, seed: 7 });
  return stream;
}

export function streamSimpleOffline(
  model: Model<Api>,
  context: Context,
  options?: SimpleStreamOptions,
): AssistantMessageEventStream {
  return streamOffline(model, context, options);
}
