// biome-ignore-all lint/suspicious/noExplicitAny: wire frames are inspected structurally.
/**
 * Protocol rules against a real gateway process: the challenge, connect (token, protocol range, device
 * signature), hello-ok shape, scopes, and bad input (invalid JSON, wrong frame kinds, unknown methods, bad
 * params, oversized frames) answered with clear errors while the server keeps serving.
 */
import { createHash, generateKeyPairSync, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { GatewayRequestError } from "../src/cli/gateway-client.js";
import { connectClient, type GatewayProc, makeHome, removeHome, spawnGateway } from "./gateway-harness.js";

const TOKEN = "s3cret-token";
let gw: GatewayProc;

beforeAll(async () => {
  const home = makeHome({ config: { gateway: { auth: { token: TOKEN }, maxPayloadBytes: 64 * 1024 } } });
  gw = await spawnGateway(home);
});

afterAll(async () => {
  await gw?.stop();
  if (gw) removeHome(gw.home);
});

interface Raw {
  ws: WebSocket;
  frames: Record<string, unknown>[];
  next(pred: (f: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  closed: Promise<number>;
  send(obj: unknown): void;
}

function openRaw(url: string): Promise<Raw> {
  const ws = new WebSocket(url);
  const frames: Record<string, unknown>[] = [];
  const waiters: { pred: (f: Record<string, unknown>) => boolean; resolve: (f: Record<string, unknown>) => void }[] =
    [];
  ws.on("message", (d) => {
    const f = JSON.parse(String(d)) as Record<string, unknown>;
    frames.push(f);
    for (const w of [...waiters]) {
      if (w.pred(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  });
  const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
  const raw: Raw = {
    ws,
    frames,
    closed,
    send: (obj) => ws.send(typeof obj === "string" ? obj : JSON.stringify(obj)),
    next: (pred, ms = 5000) =>
      new Promise((resolve, reject) => {
        const found = frames.find(pred);
        if (found) return resolve(found);
        const t = setTimeout(() => reject(new Error("no matching frame")), ms);
        waiters.push({
          pred,
          resolve: (f) => {
            clearTimeout(t);
            resolve(f);
          },
        });
      }),
  };
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(raw));
    ws.once("error", reject);
  });
}

function connectFrame(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: "req",
    id,
    method: "connect",
    params: {
      minProtocol: 4,
      maxProtocol: 4,
      client: { id: "cli", version: "2026.9.6", platform: "linux", deviceFamily: "Linux", mode: "cli" },
      caps: [],
      auth: { token: TOKEN },
      role: "operator",
      scopes: ["operator.read"],
      ...overrides,
    },
  };
}

const isRes = (id: string) => (f: Record<string, unknown>) => f.type === "res" && f.id === id;

describe("handshake", () => {
  it("sends connect.challenge first, then answers connect with hello-ok in the reference's shape", async () => {
    const raw = await openRaw(gw.url);
    const challenge = await raw.next((f) => f.event === "connect.challenge");
    expect(challenge.type).toBe("event");
    expect(challenge.seq).toBeUndefined();
    const payload = challenge.payload as { nonce: string; ts: number };
    expect(payload.nonce.length).toBeGreaterThan(10);
    expect(Number.isInteger(payload.ts)).toBe(true);
    raw.send(connectFrame("1:a"));
    const res = await raw.next(isRes("1:a"));
    expect(res.ok).toBe(true);
    const hello = res.payload as Record<string, any>;
    expect(hello.type).toBe("hello-ok");
    expect(hello.protocol).toBe(4);
    expect(typeof hello.server.version).toBe("string");
    expect(typeof hello.server.connId).toBe("string");
    for (const m of [
      "health",
      "agent",
      "agent.wait",
      "agents.list",
      "chat.send",
      "chat.history",
      "chat.abort",
      "sessions.list",
      "sessions.patch",
      "models.list",
      "status",
    ]) {
      expect(hello.features.methods).toContain(m);
    }
    expect(hello.features.events).toEqual(expect.arrayContaining(["connect.challenge", "agent", "chat", "tick"]));
    expect(hello.auth).toEqual({ role: "operator", scopes: ["operator.read"] });
    expect(hello.policy).toEqual({ maxPayload: 64 * 1024, maxBufferedBytes: 52428800, tickIntervalMs: 30000 });
    expect(hello.snapshot).toMatchObject({ presence: [], stateVersion: { presence: 0, health: 0 } });
    raw.ws.close();
  });

  it("accepts a v3..v4 range and negotiates 4; a v3-only client gets 3", async () => {
    const a = await openRaw(gw.url);
    a.send(connectFrame("1:x", { minProtocol: 3, maxProtocol: 5 }));
    expect(((await a.next(isRes("1:x"))).payload as { protocol: number }).protocol).toBe(4);
    a.ws.close();
    const b = await openRaw(gw.url);
    b.send(connectFrame("1:y", { minProtocol: 3, maxProtocol: 3 }));
    expect(((await b.next(isRes("1:y"))).payload as { protocol: number }).protocol).toBe(3);
    b.ws.close();
  });

  it("rejects an unsupported protocol with PROTOCOL_MISMATCH and closes", async () => {
    const raw = await openRaw(gw.url);
    raw.send(connectFrame("1:p", { minProtocol: 5, maxProtocol: 6 }));
    const res = await raw.next(isRes("1:p"));
    expect(res.ok).toBe(false);
    const error = res.error as { code: string; message: string; details: { code: string; expectedProtocol: number } };
    expect(error.code).toBe("INVALID_REQUEST");
    expect(error.message).toMatch(/protocol mismatch/);
    expect(error.details).toMatchObject({ code: "PROTOCOL_MISMATCH", expectedProtocol: 4 });
    expect(await raw.closed).toBe(1008);
  });

  it("rejects a wrong token with AUTH_TOKEN_MISMATCH and closes; a missing one with AUTH_TOKEN_MISSING", async () => {
    const raw = await openRaw(gw.url);
    raw.send(connectFrame("1:t", { auth: { token: "nope" } }));
    const res = await raw.next(isRes("1:t"));
    expect(res.ok).toBe(false);
    expect((res.error as { message: string }).message).toBe("unauthorized: gateway token mismatch");
    expect((res.error as { details: { code: string } }).details.code).toBe("AUTH_TOKEN_MISMATCH");
    expect(await raw.closed).toBe(1008);

    const raw2 = await openRaw(gw.url);
    raw2.send(connectFrame("1:t2", { auth: {} }));
    const res2 = await raw2.next(isRes("1:t2"));
    expect((res2.error as { details: { code: string } }).details.code).toBe("AUTH_TOKEN_MISSING");
    expect(await raw2.closed).toBe(1008);
  });

  it("answers a request sent before connect with HANDSHAKE_REQUIRED and closes", async () => {
    const raw = await openRaw(gw.url);
    raw.send({ type: "req", id: "1:h", method: "health", params: {} });
    const res = await raw.next(isRes("1:h"));
    expect(res.ok).toBe(false);
    expect((res.error as { details: { code: string } }).details.code).toBe("HANDSHAKE_REQUIRED");
    expect(await raw.closed).toBe(1008);
  });

  it("verifies a device identity signed over the challenge (v3 payload) and refuses a bad signature", async () => {
    const { publicKey, privateKey } = generateKeyPairSync("ed25519");
    const rawKey = publicKey.export({ format: "jwk" }).x as string;
    const id = createHash("sha256").update(Buffer.from(rawKey, "base64url")).digest("hex");
    const signFor = (nonce: string, ts: number, scopes: string[]): string => {
      const payload = [
        "v3",
        id,
        "cli",
        "cli",
        "operator",
        scopes.join(","),
        String(ts),
        TOKEN,
        nonce,
        "linux",
        "linux",
      ].join("|");
      return sign(null, Buffer.from(payload), privateKey).toString("base64url");
    };
    const good = await openRaw(gw.url);
    const ch = (await good.next((f) => f.event === "connect.challenge")).payload as { nonce: string; ts: number };
    good.send(
      connectFrame("1:d", {
        scopes: ["operator.write"],
        device: {
          id,
          publicKey: rawKey,
          signature: signFor(ch.nonce, ch.ts, ["operator.write"]),
          signedAt: ch.ts,
          nonce: ch.nonce,
        },
      }),
    );
    expect((await good.next(isRes("1:d"))).ok).toBe(true);
    good.ws.close();

    const bad = await openRaw(gw.url);
    const ch2 = (await bad.next((f) => f.event === "connect.challenge")).payload as { nonce: string; ts: number };
    bad.send(
      connectFrame("1:e", {
        scopes: ["operator.admin"],
        // Signed for operator.write but asking for admin: the signature must not verify.
        device: {
          id,
          publicKey: rawKey,
          signature: signFor(ch2.nonce, ch2.ts, ["operator.write"]),
          signedAt: ch2.ts,
          nonce: ch2.nonce,
        },
      }),
    );
    const res = await bad.next(isRes("1:e"));
    expect(res.ok).toBe(false);
    expect((res.error as { details: { code: string } }).details.code).toBe("DEVICE_AUTH_INVALID");
    expect(await bad.closed).toBe(1008);
  });

  it("replays the reference CLI's captured frames and gives the answers that CLI needs", async () => {
    const file = join(dirname(fileURLToPath(import.meta.url)), "protocol-wire-transcript.jsonl");
    const lines = readFileSync(file, "utf8").trim().split("\n");
    const frames = lines.map((l) => JSON.parse(l) as { conn: number; dir: string; frame: Record<string, any> });
    // Connection 1 of the capture: connect (operator.read) then agents.list.
    const raw = await openRaw(gw.url);
    const inbound = frames.filter((f) => f.conn === 1 && f.dir === "in").map((f) => f.frame);
    const connect = structuredClone(inbound[0]) as Record<string, any>;
    connect.params.auth.token = TOKEN;
    raw.send(connect);
    expect((await raw.next(isRes(connect.id))).ok).toBe(true);
    raw.send(inbound[1]);
    const list = await raw.next(isRes(inbound[1]?.id));
    expect(list.ok).toBe(true);
    expect(list.payload).toMatchObject({
      defaultId: "main",
      mainKey: "main",
      ownership: "sole",
      agents: [{ id: "main" }],
    });
    raw.ws.close();
    // Connection 3: health.
    const raw3 = await openRaw(gw.url);
    const in3 = frames.filter((f) => f.conn === 3 && f.dir === "in").map((f) => f.frame);
    const c3 = structuredClone(in3[0]) as Record<string, any>;
    c3.params.auth.token = TOKEN;
    raw3.send(c3);
    await raw3.next(isRes(c3.id));
    raw3.send(in3[1]);
    const health = await raw3.next(isRes(in3[1]?.id));
    expect(health.payload).toMatchObject({ ok: true, defaultAgentId: "main", channels: {}, sessions: { count: 0 } });
    raw3.ws.close();
  });
});

describe("requests after connect", () => {
  it("enforces scopes: a read-only client cannot call agent; the error names the scope", async () => {
    const { client } = await connectClient(gw.url, { token: TOKEN, scopes: ["operator.read"] });
    await expect(client.request("agent", { message: "hi", idempotencyKey: "k-scope" })).rejects.toMatchObject({
      error: { code: "INVALID_REQUEST", details: { code: "SCOPE_DENIED", required: "operator.write" } },
    });
    // Read methods still work on the same connection.
    expect(await client.request("agents.list", {})).toMatchObject({ defaultId: "main" });
    await expect(client.request("sessions.delete", { key: "x" })).rejects.toBeInstanceOf(GatewayRequestError);
    await client.close();
  });

  it("answers bad input with clear errors and keeps the connection serving", async () => {
    const { client, events } = await connectClient(gw.url, { token: TOKEN });
    client.sendRaw("{not json");
    client.sendRaw(JSON.stringify({ type: "event", event: "x" }));
    client.sendRaw(JSON.stringify([1, 2]));
    await expect(client.request("no.such.method", {})).rejects.toMatchObject({
      error: {
        code: "INVALID_REQUEST",
        message: "unknown method: no.such.method",
        details: { code: "METHOD_NOT_FOUND" },
      },
    });
    await expect(client.request("agent", { idempotencyKey: "k1" })).rejects.toMatchObject({
      error: {
        message: "invalid agent params: message: required non-empty string",
        details: { code: "INVALID_PARAMS", key: "message" },
      },
    });
    await expect(client.request("agent", { message: "hi", idempotencyKey: "k2", timeout: -1 })).rejects.toMatchObject({
      error: { details: { key: "timeout" } },
    });
    await expect(client.request("agent.wait", { runId: 5 })).rejects.toMatchObject({
      error: { details: { key: "runId" } },
    });
    const errors = events
      .filter((e) => e.event === "error")
      .map((e) => (e.payload as { error: { message: string } }).error.message);
    expect(errors.some((m) => m.startsWith("frame is not valid JSON"))).toBe(true);
    expect(errors).toContain('frame type must be "req", got "event"');
    expect(errors).toContain("frame must be a JSON object");
    expect(await client.request("health", {})).toMatchObject({ ok: true });
    await client.close();
  });

  it("refuses an oversized frame with PAYLOAD_TOO_LARGE, echoing its id, and keeps serving", async () => {
    const { client } = await connectClient(gw.url, { token: TOKEN });
    const big = "x".repeat(80 * 1024);
    await expect(client.request("agent", { message: big, idempotencyKey: "big-1" })).rejects.toMatchObject({
      error: { code: "INVALID_REQUEST", details: { code: "PAYLOAD_TOO_LARGE", maxPayload: 64 * 1024 } },
    });
    expect(await client.request("status", {})).toMatchObject({ ok: true });
    await client.close();
  });
});
