/**
 * Who may use the HTTP API: off unless enabled in tiller.json; a bearer gateway token (401 in OpenAI's error
 * shape otherwise, 429 with Retry-After after repeated wrong tokens); loopback-only without a token, where
 * `x-tiller-scopes` can narrow a caller and `x-tiller-model` needs admin. Config errors name the key.
 */
import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonc } from "../src/config/jsonc.js";
import { validateConfig } from "../src/config/load-config.js";
import { HttpAuth } from "../src/http/auth.js";
import { HttpApiError } from "../src/http/errors.js";
import { type GatewayProc, makeHome, removeHome, spawnGateway } from "./gateway-harness.js";
import { type HttpGateway, rawFetch, startHttpGateway, TOKEN } from "./http-harness.js";

let limited: HttpGateway;
let open: HttpGateway;
let off: GatewayProc;
let offHome: string;

beforeAll(async () => {
  offHome = makeHome({ config: { gateway: { auth: { token: TOKEN } } } });
  [limited, open, off] = await Promise.all([
    startHttpGateway({ gateway: { auth: { token: TOKEN, rateLimit: { maxAttempts: 3, lockoutMs: 120_000 } } } }),
    startHttpGateway({}, false),
    spawnGateway(offHome),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([limited?.stop(), open?.stop(), off?.stop()]);
  removeHome(offHome);
});

describe("enabling", () => {
  it("is off by default: /v1 answers 404 naming the key to set, and other paths are not routed to it", async () => {
    const base = `http://127.0.0.1:${off.port}/v1`;
    const chat = await rawFetch(base, "/chat/completions", { body: { model: "tiller", messages: [] } });
    expect(chat.status).toBe(404);
    expect(chat.json.error?.message).toMatch(/gateway\.http\.endpoints\.chatCompletions\.enabled/);
    const models = await rawFetch(base, "/models");
    expect(models.status).toBe(404);
    const health = await fetch(`http://127.0.0.1:${off.port}/health`);
    expect(health.status).toBe(200);
  });

  it("validates the config block, naming the key", () => {
    expect(() =>
      validateConfig({ gateway: { http: { endpoints: { chatCompletions: { enabled: "yes" } } } } }, "/tmp/h"),
    ).toThrow(/gateway\.http\.endpoints\.chatCompletions\.enabled: expected true or false, got "yes"/);
    expect(() => validateConfig({ gateway: { http: { endpoints: { embeddings: {} } } } }, "/tmp/h")).toThrow(
      /gateway\.http\.endpoints\.embeddings: unknown key/,
    );
    expect(() => validateConfig({ gateway: { auth: { rateLimit: { maxAttempts: 0 } } } }, "/tmp/h")).toThrow(
      /gateway\.auth\.rateLimit\.maxAttempts/,
    );
    // The README's config block is a valid tiller.json that turns both endpoints on.
    const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## OpenAI-compatible HTTP API"));
    const block = /```jsonc\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
    const documented = validateConfig(parseJsonc(block, "README.md"), "/tmp/h").gateway;
    expect(documented.http.chatCompletions.enabled).toBe(true);
    expect(documented.http.responses.enabled).toBe(true);
    expect(documented.auth.rateLimit.maxAttempts).toBe(10);
    const d = validateConfig({}, "/tmp/h").gateway;
    expect(d.http.chatCompletions.enabled).toBe(false);
    expect(d.http.responses.enabled).toBe(false);
    expect(d.auth.rateLimit).toEqual({ maxAttempts: 10, windowMs: 60_000, lockoutMs: 300_000, exemptLoopback: false });
  });
});

describe("bearer token", () => {
  it("401 in OpenAI's error shape for a missing or wrong token; the SDK raises AuthenticationError", async () => {
    const missing = await rawFetch(limited.baseURL, "/models", { token: null });
    expect(missing.status).toBe(401);
    expect(missing.json.error).toMatchObject({ type: "authentication_error", code: "missing_api_key" });
    expect(typeof missing.json.error?.message).toBe("string");
    const wrong = new OpenAI({ baseURL: limited.baseURL, apiKey: "wrong-token", maxRetries: 0 });
    const err = await wrong.chat.completions
      .create({ model: "tiller", messages: [{ role: "user", content: "x" }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).status).toBe(401);
    const ok = await limited.openai.chat.completions.create({
      model: "tiller",
      messages: [{ role: "user", content: "authed" }],
    });
    expect(ok.choices[0]?.message.content).toBe("echo: authed");
  });

  it("repeated wrong tokens lock the address out: 429 with Retry-After, even for the right token", async () => {
    // One wrong try was spent above (a success since then cleared it): three more reach the limit of 3.
    const a = await rawFetch(limited.baseURL, "/models", { token: "bad-1" });
    const b = await rawFetch(limited.baseURL, "/models", { token: "bad-2" });
    expect([a.status, b.status]).toEqual([401, 401]);
    const c = await rawFetch(limited.baseURL, "/models", { token: "bad-3" });
    expect(c.status).toBe(429);
    expect(c.json.error?.type).toBe("rate_limit_error");
    const retryAfter = Number(c.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(60);
    expect(retryAfter).toBeLessThanOrEqual(120);
    const right = await rawFetch(limited.baseURL, "/models");
    expect(right.status).toBe(429);
    const sdk = await limited.openai.models.list().catch((e: unknown) => e);
    expect(sdk).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it("exemptLoopback lets loopback clients retry without a lockout", () => {
    const auth = new HttpAuth(
      { token: TOKEN },
      { maxAttempts: 2, windowMs: 60_000, lockoutMs: 60_000, exemptLoopback: true },
    );
    const req = (address: string, token: string) =>
      ({
        socket: { remoteAddress: address },
        headers: { authorization: `Bearer ${token}` },
      }) as unknown as IncomingMessage;
    const status = (address: string, token: string): number => {
      try {
        auth.authenticate(req(address, token));
        return 200;
      } catch (e) {
        return (e as HttpApiError).status;
      }
    };
    expect([1, 2, 3, 4].map(() => status("127.0.0.1", "nope"))).toEqual([401, 401, 401, 401]);
    expect(status("::ffff:127.0.0.1", TOKEN)).toBe(200);
    expect([status("10.0.0.9", "nope"), status("10.0.0.9", "nope"), status("10.0.0.9", TOKEN)]).toEqual([
      401, 429, 429,
    ]);
  });
});

describe("no token: loopback only", () => {
  it("serves loopback callers without a header; x-tiller-model needs admin and picks the backend model", async () => {
    const r = await rawFetch(open.baseURL, "/chat/completions", {
      token: null,
      headers: { "x-tiller-model": "mock/mock-2" },
      body: { model: "tiller", messages: [{ role: "user", content: "pick MODEL-2" }] },
    });
    expect(r.status).toBe(200);
    const modelOf = (marker: string): string | undefined =>
      (open.requestsFor(marker)[0]?.body as unknown as { model?: string } | undefined)?.model;
    expect(modelOf("MODEL-2")).toBe("mock-2");
    const plain = await rawFetch(open.baseURL, "/chat/completions", {
      token: null,
      body: { model: "tiller", messages: [{ role: "user", content: "default MODEL-1" }] },
    });
    expect(plain.status).toBe(200);
    expect(modelOf("MODEL-1")).toBe("mock-1");

    const writer = await rawFetch(open.baseURL, "/chat/completions", {
      token: null,
      headers: { "x-tiller-scopes": "operator.write", "x-tiller-model": "mock/mock-2" },
      body: { model: "tiller", messages: [{ role: "user", content: "x" }] },
    });
    expect(writer.status).toBe(403);
    expect(writer.json.error?.message).toMatch(/operator\.admin/);
    const reader = await rawFetch(open.baseURL, "/chat/completions", {
      token: null,
      headers: { "x-tiller-scopes": "operator.read" },
      body: { model: "tiller", messages: [{ role: "user", content: "x" }] },
    });
    expect(reader.status).toBe(403);
    const readModels = await rawFetch(open.baseURL, "/models", {
      token: null,
      headers: { "x-tiller-scopes": "operator.read" },
    });
    expect(readModels.status).toBe(200);
  });

  it("refuses a non-loopback peer when the gateway has no token", () => {
    const auth = new HttpAuth({}, { maxAttempts: 10, windowMs: 60_000, lockoutMs: 60_000, exemptLoopback: false });
    const req = { socket: { remoteAddress: "192.168.1.20" }, headers: {} } as unknown as IncomingMessage;
    expect(() => auth.authenticate(req)).toThrow(HttpApiError);
  });
});
