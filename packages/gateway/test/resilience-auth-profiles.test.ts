import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, test } from "vitest";
import { AuthProfileStore, MAX_STICKY_SESSIONS } from "../src/resilience/auth-profile-store.js";

let dir = "";
let now = 1_000_000;
const clock = () => now;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-profiles-"));
  now = 1_000_000;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function storeWith(...ids: string[]): AuthProfileStore {
  const store = new AuthProfileStore(join(dir, "auth-profiles.json"), clock);
  for (const id of ids) store.upsert({ id, provider: "openai", type: "api_key", key: `sk-${id}` });
  return store;
}

test("the profile file is written with mode 0600", () => {
  storeWith("openai:a");
  expect(statSync(join(dir, "auth-profiles.json")).mode & 0o777).toBe(0o600);
});

test("order: preferred profile, then the session's last one, then least recently used", () => {
  const store = storeWith("openai:a", "openai:b", "openai:c");
  now += 10;
  store.markUsed("openai:a");
  now += 10;
  store.markUsed("openai:b");
  now += 10;
  store.markUsed("openai:c");
  expect(store.order("openai").map((p) => p.id)).toEqual(["openai:a", "openai:b", "openai:c"]);
  store.markSuccess("openai:c", "agent:main:s1");
  expect(store.order("openai", { sessionKey: "agent:main:s1" }).map((p) => p.id)[0]).toBe("openai:c");
  expect(
    store.order("openai", { sessionKey: "agent:main:s1", preferredProfileId: "openai:b" }).map((p) => p.id),
  ).toEqual(["openai:b", "openai:c", "openai:a"]);
});

test("cooldowns climb 30 s, 1 min, 5 min and cap there; cooling profiles go last", () => {
  const store = storeWith("openai:a", "openai:b");
  const steps = [1, 2, 3, 4].map(() => store.markFailure("openai:a", "rate_limit") - now);
  expect(steps).toEqual([30_000, 60_000, 300_000, 300_000]);
  expect(store.order("openai").map((p) => p.id)).toEqual(["openai:b", "openai:a"]);
  expect(store.isAvailable("openai:a")).toBe(false);
  now += 300_001;
  expect(store.isAvailable("openai:a")).toBe(true);
});

test("billing failures disable a profile for 5 h, doubling, capped at 24 h", () => {
  const store = storeWith("openai:a");
  const hours = [1, 2, 3, 4].map(() => (store.markFailure("openai:a", "billing") - now) / 3_600_000);
  expect(hours).toEqual([5, 10, 20, 24]);
  expect(store.usage("openai:a").disabledReason).toBe("billing");
});

test("cooldown state survives a restart (a new store on the same file)", () => {
  const store = storeWith("openai:a", "openai:b");
  store.markFailure("openai:a", "auth");
  store.markSuccess("openai:b", "agent:main:x");
  const reopened = new AuthProfileStore(join(dir, "auth-profiles.json"), clock);
  expect(reopened.isAvailable("openai:a")).toBe(false);
  expect(reopened.usage("openai:a").cooldownReason).toBe("auth");
  expect(reopened.order("openai", { sessionKey: "agent:main:x" })[0]?.id).toBe("openai:b");
});

test("a success clears the failure ladder", () => {
  const store = storeWith("openai:a");
  store.markFailure("openai:a", "rate_limit");
  store.markFailure("openai:a", "rate_limit");
  store.markSuccess("openai:a");
  expect(store.markFailure("openai:a", "rate_limit") - now).toBe(30_000);
});

test("a malformed profile file is a clear error naming the file and key", () => {
  const path = join(dir, "auth-profiles.json");
  writeFileSync(path, "{nope");
  expect(() => new AuthProfileStore(path)).toThrow(/auth-profiles\.json: not valid JSON/);
  writeFileSync(path, JSON.stringify({ version: 1, profiles: { "openai:x": { provider: "openai" } } }));
  expect(() => new AuthProfileStore(path)).toThrow(/profiles\.openai:x needs "provider" and "key"/);
  expect(readFileSync(path, "utf8")).toContain("openai:x");
});

test("a Retry-After longer than the ladder step sets the cooldown; a shorter one does not shorten it", () => {
  const store = storeWith("openai:a", "openai:b");
  expect(store.markFailure("openai:a", "rate_limit", 120_000)).toBe(now + 120_000);
  expect(store.markFailure("openai:b", "rate_limit", 1_000)).toBe(now + 30_000);
});

test("keys added by hand while running are picked up; a malformed edit keeps the last good state", () => {
  const path = join(dir, "auth-profiles.json");
  const store = storeWith("openai:a");
  const file = JSON.parse(readFileSync(path, "utf8"));
  file.profiles["openai:new"] = { provider: "openai", type: "api_key", key: "sk-new" };
  writeFileSync(path, JSON.stringify(file));
  expect(store.order("openai").map((p) => p.id)).toEqual(["openai:a", "openai:new"]);
  writeFileSync(path, "{ broken");
  expect(store.order("openai").map((p) => p.id)).toEqual(["openai:a", "openai:new"]);
});

test("a provider's preferred profile from the file goes first, ahead of the sticky one, while usable", () => {
  const path = join(dir, "auth-profiles.json");
  const store = storeWith("openai:a", "openai:b");
  store.markSuccess("openai:a", "agent:main:s");
  const file = JSON.parse(readFileSync(path, "utf8"));
  file.preferred = { openai: "openai:b" };
  writeFileSync(path, JSON.stringify(file));
  expect(store.order("openai", { sessionKey: "agent:main:s" }).map((p) => p.id)).toEqual(["openai:b", "openai:a"]);
  store.markFailure("openai:b", "auth");
  expect(store.order("openai", { sessionKey: "agent:main:s" }).map((p) => p.id)).toEqual(["openai:a", "openai:b"]);
});

test("sticky choices are capped: the oldest sessions are forgotten first, the newest kept", () => {
  const store = storeWith("openai:a", "openai:b");
  for (let i = 0; i < MAX_STICKY_SESSIONS + 5; i++) store.markSuccess(i % 2 ? "openai:a" : "openai:b", `s${i}`);
  const file = JSON.parse(readFileSync(join(dir, "auth-profiles.json"), "utf8"));
  const keys = Object.keys(file.sessionProfiles);
  expect(keys).toHaveLength(MAX_STICKY_SESSIONS);
  expect(keys).not.toContain("s0");
  expect(file.sessionProfiles[`s${MAX_STICKY_SESSIONS + 4}`]).toBe("openai:b");
});
