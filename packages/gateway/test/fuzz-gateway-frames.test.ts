// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * Fuzzing the gateway's input edges (bounded fast-check runs): the frame parser on arbitrary text, a live
 * connection fed random frames (garbage, non-request JSON, requests to real and unknown methods with random
 * params), and `agent` params of random shapes. No crash, no hang, a clear error for every bad input, and
 * the connection keeps answering `health` afterwards.
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayClient, GatewayRequestError } from "../src/cli/gateway-client.js";
import { parseClientFrame } from "../src/protocol/frames.js";
import { connectClient, type GatewayProc, makeHome, removeHome, spawnGateway } from "./gateway-harness.js";

describe("frame parser", () => {
  it("never throws: either a request frame or an INVALID_REQUEST naming the problem", () => {
    const text = fc.oneof(
      fc.string(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .record(
          {
            type: fc.oneof(fc.constant("req"), fc.string(), fc.integer()),
            id: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
            method: fc.oneof(fc.string(), fc.constant("health"), fc.integer()),
            params: fc.jsonValue(),
          },
          { requiredKeys: [] },
        )
        .map((v) => JSON.stringify(v)),
    );
    fc.assert(
      fc.property(text, (t) => {
        const r = parseClientFrame(t);
        if (r.ok) {
          expect(r.frame.type).toBe("req");
          expect(typeof r.frame.id === "string" && r.frame.id.length > 0).toBe(true);
          expect(typeof r.frame.method === "string" && r.frame.method.length > 0).toBe(true);
        } else {
          expect(r.error.code).toBe("INVALID_REQUEST");
          expect(r.error.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 1000, seed: 9 },
    );
  });
});

describe("live gateway", () => {
  let gw: GatewayProc;
  let client: GatewayClient;
  const responses = new Map<string, any>();
  const anonymous: any[] = [];

  beforeAll(async () => {
    // No models.json: runs use the offline model, so accepted `agent` requests are cheap.
    gw = await spawnGateway(makeHome());
    client = (await connectClient(gw.url)).client;
    client.ws.on("message", (data) => {
      let f: any;
      try {
        f = JSON.parse(String(data));
      } catch {
        return;
      }
      if (f?.type !== "res") return;
      if (typeof f.id === "string" && !responses.has(f.id)) responses.set(f.id, f);
      else if (f.id === undefined) anonymous.push(f);
    });
  }, 30_000);

  afterAll(async () => {
    await client?.close();
    await gw?.stop();
    if (gw) removeHome(gw.home);
  });

  const waitFor = async (id: string, ms = 5000): Promise<any> => {
    const start = Date.now();
    while (!responses.has(id)) {
      if (Date.now() - start > ms) throw new Error(`no response to ${id} within ${ms} ms`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return responses.get(id);
  };

  const METHODS = [
    "health",
    "status",
    "agents.list",
    "models.list",
    "agent",
    "chat.send",
    "chat.history",
    "chat.abort",
    "sessions.list",
    "sessions.patch",
    "sessions.reset",
    "sessions.subscribe",
    "no.such.method",
    "",
  ];

  it("random frames get answers (errors name the problem) and the connection still serves health", async () => {
    const frame = fc.oneof(
      fc.record({ kind: fc.constant("raw" as const), text: fc.string({ maxLength: 200 }) }),
      fc.record({ kind: fc.constant("json" as const), value: fc.jsonValue({ maxDepth: 3 }) }),
      fc.record({
        kind: fc.constant("req" as const),
        method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 20 })),
        params: fc.oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.dictionary(
            fc.constantFrom("message", "sessionKey", "key", "idempotencyKey", "limit", "runId", "label", "thinking"),
            fc.oneof(fc.string({ maxLength: 30 }), fc.integer(), fc.boolean(), fc.constant(null)),
          ),
        ),
      }),
    );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(frame, async (f) => {
        if (f.kind === "raw") {
          client.sendRaw(f.text);
          return;
        }
        if (f.kind === "json") {
          client.sendRaw(JSON.stringify(f.value));
          return;
        }
        const id = randomUUID();
        client.sendRaw(JSON.stringify({ type: "req", id, method: f.method, params: f.params }));
        const res = await waitFor(id);
        answered++;
        if (res.ok === false) {
          expect(typeof res.error?.message).toBe("string");
          expect(res.error.message.length).toBeGreaterThan(0);
          expect(typeof res.error.code).toBe("string");
        }
      }),
      { numRuns: 150, seed: 77 },
    );
    expect(answered).toBeGreaterThan(0);
    const health: any = await client.request("health", {}, { timeoutMs: 5000 });
    expect(health).toBeDefined();
    expect(client.ws.readyState).toBe(client.ws.OPEN);
    // Garbage without an id was answered too (an error frame, no id to echo).
    expect(anonymous.every((r) => r.ok === false && typeof r.error?.message === "string")).toBe(true);
  }, 60_000);

  it("agent params of random shapes: each type error is rejected naming agent and the key; the rest is accepted", async () => {
    const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
    const anyValue = fc.oneof(
      fc.string({ maxLength: 10 }),
      fc.integer(),
      fc.double(),
      fc.boolean(),
      fc.constant(null),
      fc.constant({}),
      fc.constant([]),
    );
    const params = fc.record(
      {
        message: maybe(fc.oneof(fc.string({ maxLength: 30 }), anyValue)),
        idempotencyKey: maybe(fc.oneof(fc.uuid(), fc.constant(""), fc.constant("x".repeat(201)), anyValue)),
        sessionKey: maybe(
          fc.oneof(
            fc.string({ maxLength: 20 }).map((s) => `fuzz-${s}`),
            anyValue,
          ),
        ),
        timeout: maybe(fc.oneof(fc.integer({ min: -5, max: 5 }), anyValue)),
        label: maybe(fc.oneof(fc.string({ maxLength: 120 }), anyValue)),
        thinking: maybe(fc.oneof(fc.constantFrom("off", "low", "bogus"), anyValue)),
        deliver: maybe(anyValue),
      },
      { requiredKeys: [] },
    );
    const typeError = (p: Record<string, unknown>): boolean => {
      const str = (v: unknown) => v === undefined || typeof v === "string";
      if (typeof p.message !== "string" || p.message.trim() === "") return true;
      if (typeof p.idempotencyKey !== "string" || p.idempotencyKey.trim() === "" || p.idempotencyKey.length > 200)
        return true;
      if (!str(p.sessionKey) || !str(p.thinking)) return true;
      if (!str(p.label) || (typeof p.label === "string" && p.label.length > 100)) return true;
      if (p.timeout !== undefined && !(typeof p.timeout === "number" && Number.isInteger(p.timeout) && p.timeout >= 0))
        return true;
      if (p.deliver !== undefined && typeof p.deliver !== "boolean") return true;
      return false;
    };
    let accepted = 0;
    let rejected = 0;
    await fc.assert(
      fc.asyncProperty(params, async (raw) => {
        const p = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
        try {
          const ack: any = await client.request("agent", p, { timeoutMs: 5000 });
          accepted++;
          expect(typeError(p), `accepted invalid params ${JSON.stringify(p)}`).toBe(false);
          expect(ack.runId).toBe(p.idempotencyKey);
        } catch (err) {
          rejected++;
          expect(err).toBeInstanceOf(GatewayRequestError);
          const e = (err as GatewayRequestError).error;
          expect(e.message.length).toBeGreaterThan(0);
          if (typeError(p)) {
            expect(e.message).toMatch(
              /agent\b.*\b(message|idempotencyKey|sessionKey|timeout|label|thinking|deliver)\b/,
            );
          }
        }
      }),
      { numRuns: 120, seed: 1234 },
    );
    expect(accepted).toBeGreaterThan(0);
    expect(rejected).toBeGreaterThan(0);
    expect(await client.request("health", {}, { timeoutMs: 5000 })).toBeDefined();
  }, 60_000);
});
