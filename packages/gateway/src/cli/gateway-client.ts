/**
 * A small client for the gateway protocol (used by `tiller agent`, `tiller gateway call`, tests and the
 * benchmark): waits for the challenge, sends connect, then correlates requests and responses by id. With
 * `expectFinal`, an `agent`-style request resolves on its second response (the one that is not "accepted").
 */
import { randomUUID } from "node:crypto";
import type { Static } from "typebox";
import WebSocket from "ws";
import type { ErrorShape, EventFrame, ResponseFrame } from "../protocol/frames.js";
import { PROTOCOL_VERSION } from "../protocol/frames.js";
import type { ConnectParams, HelloOk } from "../protocol/schema/handshake.js";
import type { METHOD_SPECS, MethodName } from "../protocol/schema/methods.js";

/** The params a catalog method takes (from its schema). */
export type MethodParams<M extends MethodName> = Static<(typeof METHOD_SPECS)[M]["params"]>;
/** What a catalog method answers (from its schema). */
export type MethodResult<M extends MethodName> = Static<(typeof METHOD_SPECS)[M]["result"]>;

export interface ClientOptions {
  token?: string;
  password?: string;
  scopes?: string[];
  caps?: string[];
  clientId?: string;
  mode?: string;
  /** Handshake deadline. */
  timeoutMs?: number;
  onEvent?: (frame: EventFrame) => void;
}

/** A response with ok:false, as an exception. */
export class GatewayRequestError extends Error {
  constructor(readonly error: ErrorShape) {
    super(error.message);
    this.name = "GatewayRequestError";
  }
}

interface Pending {
  resolve: (payload: unknown) => void;
  reject: (err: Error) => void;
  expectFinal: boolean;
  onAccepted?: (payload: unknown) => void;
  timer?: NodeJS.Timeout;
}

export class GatewayClient {
  private readonly pending = new Map<string, Pending>();
  private n = 0;
  hello: HelloOk | undefined;
  private closedError: Error | undefined;

  private constructor(
    readonly ws: WebSocket,
    private readonly opts: ClientOptions,
  ) {
    ws.on("message", (data) => this.onMessage(String(data)));
    ws.on("close", (code, reason) => {
      this.closedError = new Error(`connection closed (${code}${reason.length ? `: ${reason}` : ""})`);
      for (const p of this.pending.values()) {
        if (p.timer) clearTimeout(p.timer);
        p.reject(this.closedError);
      }
      this.pending.clear();
    });
    ws.on("error", () => {});
  }

  /** Opens the socket, answers the challenge with connect and resolves with the hello-ok'd client. */
  static connect(url: string, opts: ClientOptions = {}): Promise<GatewayClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { maxPayload: 64 * 1024 * 1024 });
      const client = new GatewayClient(ws, opts);
      const timer = setTimeout(() => {
        ws.terminate();
        reject(new Error(`gateway at ${url} did not complete the handshake in time`));
      }, opts.timeoutMs ?? 15_000);
      ws.once("error", (err) => {
        clearTimeout(timer);
        reject(new Error(`cannot reach the gateway at ${url}: ${err.message}`));
      });
      client.onChallenge = () => {
        const connect: ConnectParams = {
          minProtocol: PROTOCOL_VERSION,
          maxProtocol: PROTOCOL_VERSION,
          client: {
            id: opts.clientId ?? "tiller-cli",
            version: "0.1.0",
            platform: process.platform,
            mode: opts.mode ?? "cli",
            instanceId: randomUUID(),
          },
          caps: opts.caps ?? [],
          auth: {
            ...(opts.token ? { token: opts.token } : {}),
            ...(opts.password ? { password: opts.password } : {}),
          },
          role: "operator",
          scopes: opts.scopes ?? ["operator.admin"],
        };
        client
          .request("connect", connect)
          .then((hello) => {
            clearTimeout(timer);
            client.hello = hello as HelloOk;
            resolve(client);
          })
          .catch((err: Error) => {
            clearTimeout(timer);
            ws.terminate();
            reject(err);
          });
      };
    });
  }

  private onChallenge: (() => void) | undefined;

  /** Sends a request; resolves with the payload of its (final, with expectFinal) response. */
  request(
    method: string,
    params?: unknown,
    options: { expectFinal?: boolean; timeoutMs?: number; onAccepted?: (payload: unknown) => void } = {},
  ): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = `${++this.n}:${randomUUID()}`;
    return new Promise((resolve, reject) => {
      const p: Pending = { resolve, reject, expectFinal: options.expectFinal === true, onAccepted: options.onAccepted };
      if (options.timeoutMs) {
        p.timer = setTimeout(() => {
          this.pending.delete(id);
          reject(new Error(`${method}: no answer within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
      }
      this.pending.set(id, p);
      this.ws.send(JSON.stringify({ type: "req", id, method, ...(params === undefined ? {} : { params }) }));
    });
  }

  /** A catalog method with typed params and answer (`request` takes any method and any params). */
  call<M extends MethodName>(
    method: M,
    params: MethodParams<M>,
    options: { expectFinal?: boolean; timeoutMs?: number; onAccepted?: (payload: unknown) => void } = {},
  ): Promise<MethodResult<M>> {
    return this.request(method, params, options) as Promise<MethodResult<M>>;
  }

  /** Sends raw text (tests of malformed frames). */
  sendRaw(text: string): void {
    this.ws.send(text);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState === WebSocket.CLOSED) return resolve();
      this.ws.once("close", () => resolve());
      this.ws.close();
    });
  }

  private onMessage(text: string): void {
    let frame: ResponseFrame | EventFrame;
    try {
      frame = JSON.parse(text) as ResponseFrame | EventFrame;
    } catch {
      return;
    }
    if (frame.type === "event") {
      if (frame.event === "connect.challenge") this.onChallenge?.();
      this.opts.onEvent?.(frame);
      return;
    }
    if (frame.type !== "res") return;
    const p = this.pending.get(frame.id);
    if (!p) return;
    if (!frame.ok) {
      this.settle(frame.id, p);
      p.reject(new GatewayRequestError(frame.error ?? { code: "UNAVAILABLE", message: "request failed" }));
      return;
    }
    const status = (frame.payload as { status?: unknown } | undefined)?.status;
    if (p.expectFinal && (status === "accepted" || status === "started")) {
      p.onAccepted?.(frame.payload);
      return;
    }
    this.settle(frame.id, p);
    p.resolve(frame.payload);
  }

  private settle(id: string, p: Pending): void {
    if (p.timer) clearTimeout(p.timer);
    this.pending.delete(id);
  }
}
