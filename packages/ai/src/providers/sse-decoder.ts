/**
 * Linear Server-Sent-Events decoder for streaming response bodies.
 *
 * Why not the SDKs' decoders: the openai and @anthropic-ai/sdk stream readers copy the rest of their byte
 * buffer for every event they cut out of a network chunk (`data.slice(...)` per event), which is quadratic in
 * the chunk size; on a loopback or fast link (64 KB reads holding hundreds of events) that costs ~50 µs per
 * event, 3+ s for a 4 MB tool-call argument streamed in 64-byte fragments. The SDKs still build and send the
 * request and map HTTP errors; only the successful body is read here. Cost per network chunk is linear in
 * its size: only an unfinished trailing line is carried over.
 */

export interface SseMessage {
  /** The `event:` field, or undefined for data-only streams (OpenAI chat, Gemini). */
  event: string | undefined;
  data: string;
}

export class SseDecoder {
  private readonly text = new TextDecoder("utf-8");
  private pending = "";
  private event: string | undefined;
  private data: string[] = [];

  /** Decodes a chunk of the body; returns the messages it completed. */
  push(bytes: Uint8Array): SseMessage[] {
    return this.pushText(this.text.decode(bytes, { stream: true }));
  }

  pushText(chunk: string): SseMessage[] {
    const out: SseMessage[] = [];
    const text = this.pending ? this.pending + chunk : chunk;
    let pos = 0;
    for (;;) {
      const nl = text.indexOf("\n", pos);
      if (nl < 0) break;
      let end = nl;
      if (end > pos && text.charCodeAt(end - 1) === 13) end--; // CRLF
      this.line(text, pos, end, out);
      pos = nl + 1;
    }
    this.pending = pos < text.length ? text.slice(pos) : "";
    return out;
  }

  /** Messages still buffered when the body ended cleanly (a final event without its blank line). */
  flush(): SseMessage[] {
    const out: SseMessage[] = [];
    const rest = this.pending + this.text.decode();
    this.pending = "";
    if (rest) this.line(rest, 0, rest.length, out);
    this.line("", 0, 0, out);
    return out;
  }

  /** True when the body ended inside an event (bytes after the last complete message). */
  get hasPartial(): boolean {
    return this.pending.length > 0 || this.data.length > 0;
  }

  private line(text: string, start: number, end: number, out: SseMessage[]): void {
    if (start === end) {
      if (this.data.length > 0) {
        out.push({ event: this.event, data: this.data.length === 1 ? (this.data[0] as string) : this.data.join("\n") });
      }
      this.event = undefined;
      this.data = [];
      return;
    }
    if (text.charCodeAt(start) === 58 /* : comment */) return;
    const colon = text.indexOf(":", start);
    const fieldEnd = colon < 0 || colon > end ? end : colon;
    let valueStart = fieldEnd + 1;
    if (valueStart < end && text.charCodeAt(valueStart) === 32) valueStart++;
    const value = valueStart <= end ? text.slice(valueStart, end) : "";
    const field = text.slice(start, fieldEnd);
    if (field === "data") this.data.push(value);
    else if (field === "event") this.event = value;
  }
}

/** Iterates the SSE messages of a response body. Throws what the body throws (abort, connection reset). */
export async function* readSse(body: ReadableStream<Uint8Array> | null): AsyncGenerator<SseMessage[]> {
  if (!body) throw new Error("The response has no body");
  const decoder = new SseDecoder();
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const messages = decoder.push(value);
      if (messages.length > 0) yield messages;
    }
    finished = true;
  } finally {
    // A consumer that stops early (or a failure) must not leave the connection open.
    if (!finished) reader.cancel().catch(() => {});
    else reader.releaseLock();
  }
  const rest = decoder.flush();
  if (rest.length > 0) yield rest;
}

/** JSON.parse with an error that says which chunk was broken. */
export function parseSseJson(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    const preview = data.length > 120 ? `${data.slice(0, 120)}…` : data;
    throw new Error(`Malformed JSON in stream chunk: ${preview}`);
  }
}
