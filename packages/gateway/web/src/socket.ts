/**
 * The page's gateway connection: challenge → connect → hello-ok, requests correlated by id (an `agent`
 * request is answered twice: accepted, then final), events with a per-connection `seq` whose gaps are
 * reported, and reconnection with capped exponential backoff. A refused handshake (bad token) does not
 * retry: the page asks for a token instead.
 */
import type { ConnectionState, ConnectParams, ErrorShape, EventFrame, ResponseFrame } from "./types.js";

export interface SocketHandlers {
  onState(state: ConnectionState, detail?: string): void;
  /** The handshake completed (first time and after every reconnect). */
  onOpen(hello: Record<string, unknown>, reconnected: boolean): void;
  onEvent(frame: EventFrame): void;
  /** Frames were missed (a `seq` jumped): what the page shows may be incomplete. */
  onGap(expected: number, got: number): void;
}

/** A failed request, with the gateway's error (code, details) kept. */
export class RequestError extends Error {
  constructor(readonly error: ErrorShape) {
    super(error.message);
    this.name = "RequestError";
  }
}

interface Pending {
  resolve(payload: unknown): void;
  reject(err: Error): void;
  expectFinal: boolean;
  onAccepted?: (payload: unknown) => void;
}

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 15_000;
// operator.approvals: the page decides tool approvals (admin implies it; asked for by name all the same).
const SCOPES = ["operator.admin", "operator.read", "operator.write", "operator.approvals"];

/** Why the page will not connect to `url`, or undefined when it may (plain ws:// only to loopback). */
export function refusalReason(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `"${url}" is not a WebSocket URL (ws://host:port or wss://host:port).`;
  }
  if (u.protocol === "wss:") return undefined;
  if (u.protocol !== "ws:") return `"${url}" is not a WebSocket URL (ws://host:port or wss://host:port).`;
  const host = u.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host)) return undefined;
  return (
    `Refusing to connect to ${u.host} over plain ws://: the token and every message would cross the network ` +
    "unencrypted. Put the gateway behind TLS and use wss://, or reach it through 127.0.0.1 (an SSH tunnel)."
  );
}

export class GatewaySocket {
  private ws: WebSocket | undefined;
  private readonly pending = new Map<string, Pending>();
  private n = 0;
  private lastSeq: number | undefined;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = true;
  private opened = false;
  state: ConnectionState = "idle";
  hello: Record<string, unknown> | undefined;

  constructor(
    private url: string,
    private token: string,
    private readonly handlers: SocketHandlers,
  ) {}

  /** Starts connecting (and reconnecting) until stop(). */
  start(): void {
    const why = refusalReason(this.url);
    if (why) {
      this.setState("refused", why);
      return;
    }
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close();
    this.ws = undefined;
  }

  /** Sends a request; resolves with its payload (the final one when `expectFinal`). */
  request(
    method: string,
    params?: unknown,
    opts: { expectFinal?: boolean; onAccepted?: (payload: unknown) => void } = {},
  ): Promise<unknown> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN || (!this.hello && method !== "connect")) {
      return Promise.reject(new Error("not connected to the gateway"));
    }
    const id = `w${++this.n}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, expectFinal: opts.expectFinal === true, onAccepted: opts.onAccepted });
      ws.send(JSON.stringify({ type: "req", id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  private setState(state: ConnectionState, detail?: string): void {
    this.state = state;
    this.handlers.onState(state, detail);
  }

  private open(): void {
    this.setState(this.opened ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    this.lastSeq = undefined;
    let refused = false;
    ws.onmessage = (e) => {
      let frame: EventFrame | ResponseFrame;
      try {
        frame = JSON.parse(String(e.data)) as EventFrame | ResponseFrame;
      } catch {
        return;
      }
      if (frame.type === "res") this.onResponse(frame);
      else if (frame.type === "event") {
        if (frame.event === "connect.challenge") {
          this.handshake().catch((err: unknown) => {
            refused = err instanceof RequestError && /^AUTH_/.test(String(err.error.details?.code ?? ""));
            if (refused) this.setState("unauthorized", err instanceof Error ? err.message : String(err));
          });
          return;
        }
        this.onEventFrame(frame);
      }
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = undefined;
      this.hello = undefined;
      for (const p of this.pending.values()) p.reject(new Error("connection to the gateway lost"));
      this.pending.clear();
      if (this.stopped || refused) return;
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.attempt) * (0.8 + Math.random() * 0.4);
      this.attempt++;
      this.setState("reconnecting", `retrying in ${Math.round(delay / 100) / 10} s`);
      this.timer = setTimeout(() => this.open(), delay);
    };
  }

  private async handshake(): Promise<void> {
    const params: ConnectParams = {
      minProtocol: 3,
      maxProtocol: 4,
      client: { id: "tiller-web", version: "0.1.0", platform: "web", mode: "webchat", displayName: "Tiller web" },
      role: "operator",
      scopes: SCOPES,
      // Assistant events without the cumulative text: traffic grows linearly with the reply.
      caps: ["tiller.delta-only"],
      auth: this.token ? { token: this.token } : {},
    };
    const hello = (await this.request("connect", params)) as Record<string, unknown>;
    const reconnected = this.opened;
    this.hello = hello;
    this.opened = true;
    this.attempt = 0;
    this.setState("connected");
    this.handlers.onOpen(hello, reconnected);
  }

  private onResponse(frame: ResponseFrame): void {
    const p = this.pending.get(frame.id);
    if (!p) return;
    if (!frame.ok) {
      this.pending.delete(frame.id);
      p.reject(new RequestError(frame.error ?? { code: "UNAVAILABLE", message: "request failed" }));
      return;
    }
    const status = (frame.payload as { status?: string } | undefined)?.status;
    if (p.expectFinal && (status === "accepted" || status === "started")) {
      p.onAccepted?.(frame.payload);
      return;
    }
    this.pending.delete(frame.id);
    p.resolve(frame.payload);
  }

  private onEventFrame(frame: EventFrame): void {
    if (typeof frame.seq === "number") {
      if (this.lastSeq !== undefined && frame.seq !== this.lastSeq + 1)
        this.handlers.onGap(this.lastSeq + 1, frame.seq);
      this.lastSeq = frame.seq;
    }
    this.handlers.onEvent(frame);
  }
}
