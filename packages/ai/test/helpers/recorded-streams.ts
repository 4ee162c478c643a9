/**
 * Streams recorded from the real vendor APIs, kept as one JSON event per line (the form the Vercel AI SDK
 * stores its captures in) and replayed through a loopback server in the vendor's SSE framing. Each
 * recording names where it came from; `fixtures/recorded/SOURCES.md` lists them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AssistantMessage } from "../../src/types.js";
import type { SseEvent } from "./mock-server.js";

export interface Recording {
  /** File under `test/fixtures/recorded/`. */
  file: string;
  /** `owner/repo: path` of the original capture. */
  source: string;
  /** `typed`: an `event: <type>` line per event (Anthropic, OpenAI Responses); `data`: data lines only. */
  framing: "typed" | "data";
  /** Appends `data: [DONE]`, which chat-completions servers send and the captures leave out. */
  done?: boolean;
  /** The model id of the capture (the replay uses it so request and response agree). */
  model: string;
  /** What a user of the final message must see. */
  check: (message: AssistantMessage) => void;
}

/** The recording's events in the vendor's framing. */
export function recordedEvents(recording: Recording): SseEvent[] {
  const path = fileURLToPath(new URL(`../fixtures/recorded/${recording.file}`, import.meta.url));
  const events: SseEvent[] = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const data = JSON.parse(line) as { type?: unknown };
      return recording.framing === "typed" && typeof data.type === "string" ? { event: data.type, data } : { data };
    });
  if (recording.done) events.push({ data: "[DONE]" });
  return events;
}
