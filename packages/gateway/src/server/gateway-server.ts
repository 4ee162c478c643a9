/**
 * The WebSocket transport (OpenClaw-compatible frames) over the gateway core. One HTTP server serves the
 * WebSocket upgrade and a plain `GET /health`. Per connection: challenge → connect (first request) →
 * hello-ok; then requests dispatched to methods with scope checks; ticks keep idle clients alive.
 * A bad frame gets an error response and the connection stays usable; a failed handshake is answered and
 * closed. Binding a non-loopback address without a token or password is refused at start-up.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type RawData, type WebSocket, WebSocketServer } from "ws";
import type { TillerConfig } from "../config/config-types.js";
import { HttpApi, isHttpApiPath } from "../http/router.js";
import { builtinMethods } from "../methods/index.js";
import type { MethodContext, MethodTable } from "../methods/method-types.js";
import {
  type ErrorShape,
  errorShapeOf,
  GatewayError,
  parseClientFrame,
  type RequestFrame,
  SERVER_VERSION,
} from "../protocol/frames.js";
import { acceptConnect } from "../protocol/handshake.js";
import { parseParams } from "../protocol/params.js";
import { GATEWAY_EVENTS } from "../protocol/schema/events.js";
import type { HelloOk } from "../protocol/schema/handshake.js";
import { hasScope } from "../protocol/scopes.js";
import { WebAssets } from "../web/static-handler.js";
import { CAP_ALL_EVENTS, Connection } from "./connection.js";
import { GatewayCore, type GatewayCoreOptions } from "./gateway-core.js";
import { InterestIndex } from "./interest-index.js";
import { SubscriptionIndex } from "./subscriptions.js";
import { textViewOf } from "./text-view.js";

export { GATEWAY_EVENTS } from "../protocol/schema/events.js";
/** A client that has not completed `connect` by then is disconnected. */
export const HANDSHAKE_TIMEOUT_MS = 15_000;

export interface GatewayServerOptions
  extends Partial<
    Pick<GatewayCoreOptions, "models" | "runner" | "shaping" | "placement" | "bus" | "authProfiles" | "approvals">
  > {
  config: TillerConfig;
  /** Overrides gateway.port / bind / auth.token from the config. */
  port?: number;
  bind?: string;
  token?: string;
  password?: string;
  /** Extra or replacement methods. */
  methods?: MethodTable;
  log?: (line: string) => void;
  /** Called once `close()` has finished (the composition root releases the home lock here). */
  onClosed?: () => void;
}

export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase();
  return h === "localhost" || h === "::1" || h === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** A connection that receives approval events and may decide them. */
function isApprover(c: Connection): boolean {
  return c.hello !== undefined && !c.closed && hasScope(c.scopes, "operator.approvals");
}

export class GatewayServer {
  readonly core: GatewayCore;
  private readonly http: Server;
  private readonly wss: WebSocketServer;
  private readonly conns = new Set<Connection>();
  private readonly index: SubscriptionIndex<Connection>;
  private readonly methods: MethodTable;
  private readonly tick: NodeJS.Timeout;
  private readonly unsubscribeBus: () => void;
  private readonly auth: { token?: string; password?: string };
  /** The OpenAI-compatible API on `/v1/*` (src/http). */
  private readonly httpApi: HttpApi;
  readonly bind: string;
  port = 0;
  private closing: Promise<void> | undefined;
  private readonly web = new WebAssets();

  private constructor(private readonly opts: GatewayServerOptions) {
    const cfg = opts.config.gateway;
    this.bind = opts.bind ?? cfg.bind;
    // An empty override (e.g. TILLER_GATEWAY_TOKEN="") must not switch auth off: fall back to the config.
    this.auth = { token: opts.token || cfg.auth.token, password: opts.password || cfg.auth.password };
    if (!isLoopback(this.bind) && !this.auth.token && !this.auth.password) {
      throw new Error(
        `refusing to bind ${this.bind} without a token: set gateway.auth.token in tiller.json or pass --token (loopback addresses may run without one)`,
      );
    }
    this.core = new GatewayCore({
      config: opts.config,
      models: opts.models,
      runner: opts.runner,
      shaping: opts.shaping,
      log: opts.log,
      placement: opts.placement,
      bus: opts.bus,
      authProfiles: opts.authProfiles,
      approvals: opts.approvals,
    });
    // A placement that relays events between processes learns which sessions this one's clients follow.
    const watch = this.core.placement.watchSession?.bind(this.core.placement);
    this.index = watch ? new InterestIndex<Connection>(watch) : new SubscriptionIndex<Connection>();
    this.methods = { ...builtinMethods(), ...opts.methods };
    this.httpApi = new HttpApi({ core: this.core, auth: this.auth, log: opts.log });
    this.http = createServer((req, res) => this.onHttp(req, res));
    // The socket-level cap is above the policy limit so an oversized frame can be answered, not just cut.
    this.wss = new WebSocketServer({ server: this.http, maxPayload: cfg.maxPayloadBytes * 2 + 64 * 1024 });
    this.wss.on("connection", (ws) => this.onConnection(ws));
    this.unsubscribeBus = this.core.bus.subscribe(
      (ev) => this.index.deliver(ev),
      (sessionKey) => this.index.readsText(sessionKey),
    );
    this.core.approvals.attach({
      hasApprover: () => [...this.conns].some((c) => isApprover(c)),
      broadcast: (event, payload) => {
        const json = JSON.stringify(payload);
        for (const c of this.conns) if (isApprover(c)) c.sendBroadcast(event, json);
      },
    });
    this.tick = setInterval(() => this.sendTicks(), cfg.tickIntervalMs);
    this.tick.unref();
  }

  /** Starts listening; resolves once the port is bound. */
  static async start(opts: GatewayServerOptions): Promise<GatewayServer> {
    const server = new GatewayServer(opts);
    const port = opts.port ?? opts.config.gateway.port;
    await new Promise<void>((resolve, reject) => {
      server.http.once("error", reject);
      server.http.listen(port, server.bind, () => {
        server.http.off("error", reject);
        resolve();
      });
    }).catch(async (err: unknown) => {
      await server.core.shutdown(0);
      throw err;
    });
    server.port = (server.http.address() as AddressInfo).port;
    return server;
  }

  get url(): string {
    const host = this.bind.includes(":") && !this.bind.startsWith("[") ? `[${this.bind}]` : this.bind;
    return `ws://${host === "0.0.0.0" ? "127.0.0.1" : host}:${this.port}`;
  }

  get connectionCount(): number {
    return this.conns.size;
  }

  /** Plugins see gateway_stop; then tells clients, aborts runs (they end as aborted), closes sockets and the store. */
  close(reason?: string): Promise<void> {
    if (!this.closing) {
      this.closing = (async () => {
        await this.core.shaping?.gatewayStopping(reason);
        clearInterval(this.tick);
        for (const c of this.conns) c.sendUnsequenced("shutdown", { reason: "gateway stopping", ts: Date.now() });
        await this.core.shutdown();
        this.unsubscribeBus();
        for (const c of this.conns) c.close(1012, "gateway stopping");
        for (const ws of this.wss.clients) ws.terminate();
        await new Promise<void>((r) => this.wss.close(() => r()));
        await new Promise<void>((r) => this.http.close(() => r()));
        this.opts.onClosed?.();
      })();
    }
    return this.closing;
  }

  private onHttp(req: IncomingMessage, res: ServerResponse): void {
    if (isHttpApiPath(req.url)) {
      void this.httpApi.handle(req, res);
      return;
    }
    if (req.method === "GET" && (req.url === "/health" || req.url === "/healthz")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, version: SERVER_VERSION, uptimeMs: Date.now() - this.core.startedAt }));
      return;
    }
    if (this.web.handle(req, res)) return;
    res.writeHead(426, { "content-type": "text/plain" });
    res.end("Tiller gateway: connect with a WebSocket client (see README).\n");
  }

  private onConnection(ws: WebSocket): void {
    const conn = new Connection(ws, this.opts.config.gateway.maxBufferedBytes, this.index);
    this.conns.add(conn);
    conn.sendUnsequenced("connect.challenge", conn.challenge);
    const handshakeTimer = setTimeout(() => {
      if (!conn.hello) conn.close(1008, "handshake timeout: send connect first");
    }, HANDSHAKE_TIMEOUT_MS);
    handshakeTimer.unref();
    ws.on("message", (data, isBinary) => this.onMessage(conn, data, isBinary));
    ws.on("close", () => {
      clearTimeout(handshakeTimer);
      conn.closed = true;
      conn.unsubscribeAll();
      this.conns.delete(conn);
      if (conn.hello) this.core.approvals.audienceChanged(); // a cluster learns when its last approver here left
    });
    ws.on("error", () => {
      // Socket errors end in `close`; nothing else to do (a run never depends on its client).
    });
  }

  private onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    const size = Array.isArray(data)
      ? data.reduce((n, b) => n + b.length, 0)
      : data instanceof ArrayBuffer
        ? data.byteLength
        : data.length;
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString("utf8")
      : Buffer.from(data as Buffer).toString("utf8");
    const max = this.opts.config.gateway.maxPayloadBytes;
    if (size > max) {
      const id = /"id"\s*:\s*"([^"]{1,200})"/.exec(text.slice(0, 4096))?.[1];
      this.reject(conn, id, {
        code: "INVALID_REQUEST",
        message: `payload too large: ${size} bytes (max ${max})`,
        details: { code: "PAYLOAD_TOO_LARGE", maxPayload: max, size },
      });
      return;
    }
    if (isBinary) {
      this.reject(conn, undefined, {
        code: "INVALID_REQUEST",
        message: "binary frames are not supported: send JSON text frames",
        details: { code: "INVALID_FRAME" },
      });
      return;
    }
    const parsed = parseClientFrame(text);
    if (!parsed.ok) {
      this.reject(conn, parsed.id, parsed.error);
      return;
    }
    const frame = parsed.frame;
    if (!conn.hello) {
      this.handshake(conn, frame);
      return;
    }
    if (frame.method === "connect") {
      conn.respondError(frame.id, {
        code: "INVALID_REQUEST",
        message: "already connected",
        details: { code: "INVALID_FRAME" },
      });
      return;
    }
    void this.dispatch(conn, frame);
  }

  /** An error for a frame we could not use. Before the handshake it also ends the connection. */
  private reject(conn: Connection, id: string | undefined, error: ErrorShape): void {
    if (id) conn.respondError(id, error);
    else conn.sendUnsequenced("error", { error });
    if (!conn.hello) conn.close(1008, error.message);
  }

  private handshake(conn: Connection, frame: RequestFrame): void {
    if (frame.method !== "connect") {
      conn.respondError(frame.id, {
        code: "INVALID_REQUEST",
        message: `first request must be connect (got ${frame.method})`,
        details: { code: "HANDSHAKE_REQUIRED" },
      });
      conn.close(1008, "handshake required");
      return;
    }
    try {
      const hello = acceptConnect(frame.params, this.auth, conn.challenge);
      conn.hello = hello;
      const caps = (frame.params as { caps?: unknown }).caps;
      if (Array.isArray(caps)) for (const c of caps) if (typeof c === "string") conn.caps.add(c);
      if (conn.caps.has(CAP_ALL_EVENTS)) conn.subscribeAll();
      conn.view = textViewOf({ protocol: hello.protocol, clientId: hello.client.id, caps: conn.caps });
      const policy = this.opts.config.gateway;
      const payload: HelloOk = {
        type: "hello-ok",
        protocol: hello.protocol,
        server: { version: SERVER_VERSION, connId: conn.connId },
        features: { methods: Object.keys(this.methods), events: GATEWAY_EVENTS },
        snapshot: {
          presence: [],
          health: {},
          stateVersion: { presence: 0, health: 0 },
          uptimeMs: Date.now() - this.core.startedAt,
          stateDir: this.core.config.home,
        },
        auth: { role: hello.role, scopes: hello.scopes },
        policy: {
          maxPayload: policy.maxPayloadBytes,
          maxBufferedBytes: policy.maxBufferedBytes,
          tickIntervalMs: policy.tickIntervalMs,
        },
      };
      conn.respond({ type: "res", id: frame.id, ok: true, payload });
      // Approvals waiting from before this client connected (or before a restart) are announced to it.
      if (isApprover(conn)) this.core.approvals.announceTo((event, p) => conn.sendBroadcast(event, JSON.stringify(p)));
    } catch (err) {
      conn.respondError(frame.id, errorShapeOf(err));
      conn.close(1008, "connect rejected");
    }
  }

  private async dispatch(conn: Connection, frame: RequestFrame): Promise<void> {
    const def = this.methods[frame.method];
    if (!def) {
      conn.respondError(frame.id, {
        code: "INVALID_REQUEST",
        message: `unknown method: ${frame.method}`,
        details: { code: "METHOD_NOT_FOUND", method: frame.method },
      });
      return;
    }
    if (!hasScope(conn.scopes, def.scope)) {
      conn.respondError(frame.id, {
        code: "INVALID_REQUEST",
        message: `missing scope ${def.scope} for ${frame.method}`,
        details: { code: "SCOPE_DENIED", required: def.scope, granted: conn.scopes },
      });
      return;
    }
    let responded = false;
    const ctx: MethodContext = {
      core: this.core,
      conn,
      id: frame.id,
      params: undefined,
      respond: (payload) => {
        responded = true;
        conn.respond({ type: "res", id: frame.id, ok: true, payload });
      },
      respondError: (error, payload) => {
        responded = true;
        conn.respond({ type: "res", id: frame.id, ok: false, error, ...(payload === undefined ? {} : { payload }) });
      },
    };
    try {
      ctx.params = parseParams(frame.method, def.params, frame.params);
      const result = await def.handler(ctx);
      if (result !== undefined) ctx.respond(result);
      else if (!responded) ctx.respond({ ok: true });
    } catch (err) {
      if (!(err instanceof GatewayError)) this.opts.log?.(`method ${frame.method} failed: ${String(err)}`);
      ctx.respondError(errorShapeOf(err));
    }
  }

  private sendTicks(): void {
    const payload = { ts: Date.now() };
    for (const c of this.conns) if (c.hello) c.sendUnsequenced("tick", payload, true);
  }
}
