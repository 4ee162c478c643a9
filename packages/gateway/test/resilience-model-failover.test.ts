import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ErrorClass, ErrorClassification } from "@tiller/ai";
import { afterEach, beforeEach, expect, test } from "vitest";
import { AuthProfileStore } from "../src/resilience/auth-profile-store.js";
import { FailoverError } from "../src/resilience/failover-error.js";
import { runWithFailover } from "../src/resilience/model-failover.js";
import { pickFallbackThinkingLevel } from "../src/resilience/thinking-fallback.js";

class ProviderFailure extends Error {
  constructor(
    readonly kind: ErrorClass,
    readonly status?: number,
  ) {
    super(`${kind} failure`);
  }
}
const classify = (err: unknown): ErrorClassification => {
  const f = err as ProviderFailure;
  return { class: f.kind ?? "unknown", retryable: false, status: f.status, message: f.message };
};

let dir = "";
let store: AuthProfileStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-failover-"));
  store = new AuthProfileStore(join(dir, "auth-profiles.json"));
  store.upsert({ id: "openai:a", provider: "openai", type: "api_key", key: "ka" });
  store.upsert({ id: "openai:b", provider: "openai", type: "api_key", key: "kb" });
  store.upsert({ id: "anthropic:a", provider: "anthropic", type: "api_key", key: "kc" });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const candidates = [
  { provider: "openai", model: "gpt-x" },
  { provider: "anthropic", model: "claude-y" },
];

test("a rate-limited profile cools down and the next profile of the same model answers", async () => {
  const seen: string[] = [];
  const out = await runWithFailover({
    candidates,
    store,
    sessionKey: "agent:main:s",
    classify,
    attempt: async ({ profile, model }) => {
      seen.push(`${model}@${profile?.id}`);
      if (profile?.id === "openai:a") throw new ProviderFailure("rate_limit", 429);
      return "hello";
    },
  });
  expect(seen).toEqual(["gpt-x@openai:a", "gpt-x@openai:b"]);
  expect(out).toMatchObject({ result: "hello", model: "gpt-x", profileId: "openai:b" });
  expect(out.attempts).toEqual([expect.objectContaining({ profileId: "openai:a", reason: "rate_limit", status: 429 })]);
  expect(store.isAvailable("openai:a")).toBe(false);
  expect(store.order("openai", { sessionKey: "agent:main:s" })[0]?.id).toBe("openai:b");
});

test("when every profile of a model fails, the next model in the chain answers", async () => {
  const out = await runWithFailover({
    candidates,
    store,
    classify,
    attempt: async ({ provider, profile }) => {
      if (provider === "openai") throw new ProviderFailure(profile?.id === "openai:a" ? "auth" : "quota", 401);
      return `ok from ${profile?.id}`;
    },
  });
  expect(out).toMatchObject({ provider: "anthropic", result: "ok from anthropic:a" });
  expect(out.attempts.map((a) => a.reason)).toEqual(["auth", "quota"]);
});

test("a model whose profiles are all cooling down is skipped without a call", async () => {
  store.markFailure("openai:a", "rate_limit");
  store.markFailure("openai:b", "billing");
  const calls: string[] = [];
  const out = await runWithFailover({
    candidates,
    store,
    classify,
    attempt: async ({ provider }) => {
      calls.push(provider);
      return "fine";
    },
  });
  expect(calls).toEqual(["anthropic"]);
  expect(out.attempts[0]?.message).toMatch(/every openai profile is cooling down/);
});

test("overloaded moves to the next model without penalizing the profile", async () => {
  const out = await runWithFailover({
    candidates,
    store,
    classify,
    attempt: async ({ provider }) => {
      if (provider === "openai") throw new ProviderFailure("overloaded", 529);
      return "fallback";
    },
  });
  expect(out.provider).toBe("anthropic");
  expect(store.isAvailable("openai:a")).toBe(true);
});

test("context overflow never falls back: it throws at once for the caller to compact", async () => {
  const calls: string[] = [];
  const run = runWithFailover({
    candidates,
    store,
    classify,
    attempt: async ({ provider }) => {
      calls.push(provider);
      throw new ProviderFailure("context_overflow", 400);
    },
  });
  await expect(run).rejects.toBeInstanceOf(FailoverError);
  await expect(run).rejects.toMatchObject({ reason: "context_overflow", provider: "openai" });
  expect(calls).toEqual(["openai"]);
});

test("a failed result (not a throw) is recognized through failureOf", async () => {
  const out = await runWithFailover({
    candidates: [
      { provider: "local", model: "m1" },
      { provider: "local", model: "m2" },
    ],
    classify,
    failureOf: (r: { stopReason: string }) =>
      r.stopReason === "error" ? { class: "network", retryable: true, message: "socket hang up" } : undefined,
    attempt: async ({ model }) => ({ stopReason: model === "m1" ? "error" : "stop" }),
  });
  expect(out.model).toBe("m2");
});

test("when everything fails the FailoverError carries reason, provider, model, profile and status", async () => {
  const err = await runWithFailover({
    candidates,
    store,
    classify,
    attempt: async () => {
      throw new ProviderFailure("auth", 401);
    },
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(FailoverError);
  expect(err).toMatchObject({
    reason: "auth",
    provider: "anthropic",
    model: "claude-y",
    profileId: "anthropic:a",
    status: 401,
  });
  expect((err as FailoverError).attempts).toHaveLength(3);
  expect((err as FailoverError).message).toMatch(/All models failed: openai\/gpt-x@openai:a: auth/);
});

test("a rejected thinking level falls back to a listed supported level, then off", () => {
  expect(
    pickFallbackThinkingLevel(
      "reasoning_effort 'xhigh' is not supported. Supported values are: low, medium, high.",
      "xhigh",
    ),
  ).toBe("high");
  expect(pickFallbackThinkingLevel("thinking budget invalid for this model", "high")).toBe("minimal");
  expect(pickFallbackThinkingLevel("reasoning is not supported by this model", "medium")).toBe("off");
  expect(pickFallbackThinkingLevel("reasoning is not supported", "off")).toBeUndefined();
});
