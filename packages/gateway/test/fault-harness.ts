/**
 * Fault-injecting loopback provider for the fault matrix, the crash test and the fault benchmark. It speaks
 * OpenAI chat-completions SSE and reads a directive from the last user message:
 *
 *   [fault:KIND:N]   the first N requests carrying this exact message fail with KIND, later ones answer
 *   [fault:KIND:all] every request carrying it fails
 *   [fault:KIND:N:ID] like N, but counted over every request that quotes this directive anywhere
 *
 * KIND: 401 | 402 | 429 (Retry-After: 120) | 500 | 529 | hang | cut-early (before any text) | cut-late
 * (after two text deltas) | malformed (a broken JSON chunk first) | overflow (context length exceeded) |
 * thinking (400 for any reasoning_effort other than "low", which it lists as the supported value).
 * Without a directive (or once N failures are spent) it answers "echo: <message>" in three deltas;
 * `[delay:MS]` spaces those events MS apart.
 * Every request is logged with the key it carried and the model it asked for.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type MockReply, type MockServer, startOpenAIMock } from "../../ai/test/helpers/mock-server.js";
import { openaiChatEvents } from "../../ai/test/helpers/vendor-events.js";
import { makeHome } from "./gateway-harness.js";

export const FAULT_KINDS = [
  "401",
  "402",
  "429",
  "500",
  "529",
  "hang",
  "cut-early",
  "cut-late",
  "malformed",
  "overflow",
  "thinking",
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultRequest {
  text: string;
  key: string;
  model: string;
  /** reasoning_effort of the request, when it sent one. */
  effort?: string;
  fault?: FaultKind;
}

export interface FaultProvider {
  server: MockServer;
  log: FaultRequest[];
  /** Requests that carried `text` somewhere in their last user message. */
  requestsFor(text: string): FaultRequest[];
  close(): Promise<void>;
}

function lastUserText(body: unknown): string {
  const messages = (body as { messages?: { role: string; content: unknown }[] })?.messages ?? [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) return m.content.map((c: { text?: string }) => c.text ?? "").join("");
  }
  return "";
}

const usage = { input: 10, output: 5 };

export function echoEvents(text: string): ReturnType<typeof openaiChatEvents> {
  const reply = `echo: ${text}`;
  const third = Math.ceil(reply.length / 3);
  return openaiChatEvents({
    text: [reply.slice(0, third), reply.slice(third, 2 * third), reply.slice(2 * third)],
    usage,
  });
}

/** The reply for one fault kind (exported for the benchmark, which picks faults at random). */
export function faultReply(kind: FaultKind, text: string): MockReply {
  switch (kind) {
    case "401":
      return {
        status: 401,
        json: {
          error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" },
        },
      };
    case "402":
      return {
        status: 402,
        json: { error: { message: "Payment required: insufficient credits on this account", type: "billing_error" } },
      };
    case "429":
      return {
        status: 429,
        headers: { "retry-after": "120" },
        json: { error: { message: "Rate limit reached for requests", type: "requests", code: "rate_limit_exceeded" } },
      };
    case "500":
      return {
        status: 500,
        json: { error: { message: "The server had an error processing your request", type: "server_error" } },
      };
    case "529":
      return { status: 529, json: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } };
    case "hang":
      return { events: echoEvents(text), hangAfter: 1 };
    case "cut-early":
      return { events: echoEvents(text), cutAfter: 1 };
    case "cut-late":
      return { events: echoEvents(text), cutAfter: 3 };
    case "malformed":
      return { events: [{ data: '{"id":"chatcmpl-x","choices":[{"delta":{"content":"oops' }, ...echoEvents(text)] };
    case "thinking":
      return {
        status: 400,
        json: {
          error: {
            message:
              "Unsupported value: 'reasoning_effort' is not supported with this model. Supported values are: 'low'.",
            type: "invalid_request_error",
            param: "reasoning_effort",
            code: "unsupported_value",
          },
        },
      };
    case "overflow":
      return {
        status: 400,
        json: {
          error: {
            message:
              "This model's maximum context length is 128000 tokens. However, your messages resulted in 200000 tokens.",
            type: "invalid_request_error",
            code: "context_length_exceeded",
          },
        },
      };
  }
}

export async function startFaultProvider(): Promise<FaultProvider> {
  const log: FaultRequest[] = [];
  const spent = new Map<string, number>();
  const server = await startOpenAIMock((req) => {
    const text = lastUserText(req.body);
    const key = String(req.headers.authorization ?? "").replace(/^Bearer /, "");
    const model = String(req.body?.model ?? "");
    const effort = typeof req.body?.reasoning_effort === "string" ? (req.body.reasoning_effort as string) : undefined;
    const m = /\[fault:([a-z0-9-]+):(all|\d+)(?::([a-z0-9-]+))?\]/.exec(text);
    let fault: FaultKind | undefined;
    if (m && (FAULT_KINDS as readonly string[]).includes(m[1] as string)) {
      // With an id, the count is shared by every request quoting the directive (e.g. a compaction summary).
      const counter = m[3] ? m[0] : text;
      const used = spent.get(counter) ?? 0;
      // "thinking" only rejects requests that ask for an effort other than the supported one.
      const applies = m[1] !== "thinking" || (effort !== undefined && effort !== "low");
      if (applies && (m[2] === "all" || used < Number(m[2]))) {
        fault = m[1] as FaultKind;
        spent.set(counter, used + 1);
      }
    }
    log.push({ text, key, model, ...(effort ? { effort } : {}), ...(fault ? { fault } : {}) });
    if (fault) return faultReply(fault, text);
    const delay = /\[delay:(\d+)\]/.exec(text);
    return { events: echoEvents(text), ...(delay ? { delayMs: Number(delay[1]) } : {}) };
  });
  return {
    server,
    log,
    requestsFor: (text) => log.filter((r) => r.text.includes(text)),
    close: () => server.close(),
  };
}

/**
 * A TILLER_HOME for fault runs: provider `mock` (model mock-1, keys from auth-profiles.json) with fallback
 * `backup/backup-1` (its own key), both served by `provider`.
 */
export function makeFaultHome(provider: FaultProvider, config: Record<string, unknown> = {}): string {
  const home = makeHome({
    config: { agents: { defaults: { model: { primary: "mock/mock-1", fallbacks: ["backup/backup-1"] } } }, ...config },
  });
  writeFileSync(
    join(home, "models.json"),
    JSON.stringify({
      providers: {
        mock: {
          baseUrl: provider.server.baseUrl,
          api: "openai-completions",
          apiKey: "models-json-key",
          models: [{ id: "mock-1", reasoning: true, compat: { supportsReasoningEffort: true } }],
        },
        backup: {
          baseUrl: provider.server.baseUrl,
          api: "openai-completions",
          apiKey: "backup-key",
          models: [{ id: "backup-1" }],
        },
      },
    }),
  );
  writeProfiles(home);
  // The engine's own retry of a failed turn (overload, network) backs off in milliseconds here, not seconds.
  writeFileSync(join(home, "settings.json"), JSON.stringify({ retry: { baseDelayMs: 10, maxDelayMs: 50 } }));
  return home;
}

/** (Re)writes auth-profiles.json with two keys for `mock` and no routing state. */
export function writeProfiles(home: string): void {
  writeFileSync(
    join(home, "auth-profiles.json"),
    JSON.stringify({
      version: 1,
      profiles: {
        "mock:a": { provider: "mock", type: "api_key", key: "key-a" },
        "mock:b": { provider: "mock", type: "api_key", key: "key-b" },
      },
    }),
    { mode: 0o600 },
  );
}

export interface ProfileState {
  usage: Record<
    string,
    {
      errorCount: number;
      cooldownUntil?: number;
      cooldownReason?: string;
      disabledUntil?: number;
      disabledReason?: string;
    }
  >;
  sessionProfiles: Record<string, string>;
}

export function readProfiles(home: string): ProfileState {
  const raw = JSON.parse(readFileSync(join(home, "auth-profiles.json"), "utf8"));
  return { usage: raw.usage ?? {}, sessionProfiles: raw.sessionProfiles ?? {} };
}

export interface TranscriptCheck {
  file: string;
  lines: number;
  /** Lines that are not valid JSON (a torn write). */
  bad: number;
  entries: { id?: string; type: string; message?: { role: string; content: unknown; stopReason?: string } }[];
}

/** Every gateway transcript of agent `main`, parsed line by line. */
export function readTranscripts(home: string, agentId = "main"): TranscriptCheck[] {
  const dir = join(home, "sessions", "gateway", agentId);
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith(".jsonl"));
  } catch {
    return [];
  }
  return files.map((f) => {
    const file = join(dir, f);
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim().length > 0);
    let bad = 0;
    const entries: TranscriptCheck["entries"] = [];
    for (const l of lines) {
      try {
        entries.push(JSON.parse(l));
      } catch {
        bad++;
      }
    }
    return { file, lines: lines.length, bad, entries };
  });
}

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((c: { text?: string }) => c.text ?? "").join("");
}

/** The transcript holding `text`, with its user and assistant messages. */
export function transcriptWith(home: string, text: string): TranscriptCheck | undefined {
  return readTranscripts(home).find((t) =>
    t.entries.some((e) => e.message?.role === "user" && textOf(e.message.content).includes(text)),
  );
}
