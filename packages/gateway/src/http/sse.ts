/**
 * Server-sent events for the streaming endpoints: `data: <json>` lines (with `event: <type>` for the Responses
 * API), `data: [DONE]` at the end. Writes are coalesced per event-loop turn (cork/uncork), so a model streaming
 * many small deltas costs one socket write per turn. `closed` turns true when the client goes away.
 *
 * Bounded like a WebSocket connection (server/connection.ts): an event stream cannot skip deltas (the client
 * rebuilds the text from them), so a client whose unread backlog passes twice `gateway.maxBufferedBytes` is cut
 * off — the response is destroyed, which the endpoint sees as the client gone (its run is aborted) — instead of
 * the gateway holding a growing reply for a client that stopped reading.
 */
import type { ServerResponse } from "node:http";

export class SseWriter {
  private corked = false;
  private ended = false;

  /** `maxBufferedBytes`: the gateway's per-connection send bound (`gateway.maxBufferedBytes`). */
  constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(200, {
      ...headers,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.flushHeaders();
  }

  /** True once the stream ended or the client disconnected. */
  get closed(): boolean {
    return this.ended || this.res.destroyed || this.res.writableEnded;
  }

  /** One event: `data: <json>`, preceded by `event: <name>` when named. */
  send(data: unknown, event?: string): void {
    this.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
  }

  /** `data: [DONE]` and the end of the response. */
  done(): void {
    if (this.closed) return;
    this.write("data: [DONE]\n\n");
    this.ended = true;
    this.res.end();
  }

  private write(text: string): void {
    if (this.closed) return;
    if (!this.corked) {
      this.corked = true;
      this.res.cork();
      setImmediate(() => {
        this.corked = false;
        this.res.uncork();
      });
    }
    this.res.write(text);
    // What the response and its socket hold unwritten (the kernel's buffers are not in it; see connection.ts).
    if (this.res.writableLength > 2 * this.maxBufferedBytes) {
      this.ended = true;
      this.res.destroy();
    }
  }
}
