/**
 * OAuth logins of registered providers (pi's `AuthStorage.login` / `getOAuthProviders`, and `registerProvider`
 * with `oauth`): the flow's credential is stored in pi's format, turned into keys by its provider, and refreshed
 * once it expires — once across concurrent callers, and never lost when a refresh fails.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pi from "@mariozechner/pi-coding-agent";
import type { OAuthCredentials, OAuthLoginCallbacks, OAuthProviderInterface } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuthStorage, ModelRegistry } from "../src/index.js";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-oauth-"));
  file = join(dir, "auth.json");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A provider as an extension writes one: its login asks for a code; tokens become keys with a prefix. */
function corpProvider(state: { refreshes: number; failRefresh?: boolean }): OAuthProviderInterface {
  return {
    id: "corp",
    name: "Corp SSO",
    async login(callbacks: OAuthLoginCallbacks): Promise<OAuthCredentials> {
      callbacks.onAuth({ url: "https://sso.example/authorize" });
      const code = await callbacks.onPrompt({ message: "Paste the code" });
      return { access: `access-${code}`, refresh: `refresh-${code}`, expires: Date.now() + 60_000, account: "a1" };
    },
    async refreshToken(c: OAuthCredentials): Promise<OAuthCredentials> {
      state.refreshes++;
      await new Promise((r) => setImmediate(r));
      if (state.failRefresh) throw new Error("refresh token revoked");
      return { ...c, access: `${c.access}+r${state.refreshes}`, expires: Date.now() + 60_000 };
    },
    getApiKey: (c) => `key:${c.access}:${String(c.account)}`,
  };
}

const callbacks = (code: string, seen: string[]): OAuthLoginCallbacks => ({
  onAuth: (info) => seen.push(info.url),
  onPrompt: async (p) => {
    seen.push(p.message);
    return code;
  },
});

describe("AuthStorage OAuth login", () => {
  it("runs a registered provider's login, stores the credential in pi's format and keys requests through it", async () => {
    const auth = AuthStorage.create(file);
    const state = { refreshes: 0 };
    auth.registerOAuthProvider(corpProvider(state));
    expect(auth.getOAuthProviders().map((p) => [p.id, p.name])).toEqual([["corp", "Corp SSO"]]);
    const seen: string[] = [];
    await auth.login("corp", callbacks("c0de", seen));
    expect(seen).toEqual(["https://sso.example/authorize", "Paste the code"]);
    const stored = JSON.parse(readFileSync(file, "utf8")).corp;
    expect(stored).toMatchObject({ type: "oauth", access: "access-c0de", refresh: "refresh-c0de", account: "a1" });
    // pi reads the file Tiller wrote as its own OAuth credential.
    expect(pi.AuthStorage.create(file).get("corp")).toEqual(stored);
    expect(await auth.getApiKey("corp")).toBe("key:access-c0de:a1");
    expect(state.refreshes).toBe(0);
  });

  it("refuses an unknown provider and keeps what was stored when the flow fails", async () => {
    const auth = AuthStorage.create(file);
    auth.set("corp", { type: "api_key", key: "kept" });
    await expect(auth.login("nobody", callbacks("x", []))).rejects.toThrow("Unknown OAuth provider: nobody");
    auth.registerOAuthProvider({
      ...corpProvider({ refreshes: 0 }),
      login: async () => {
        throw new Error("user closed the browser");
      },
    });
    await expect(auth.login("corp", callbacks("x", []))).rejects.toThrow("user closed the browser");
    expect(await AuthStorage.create(file).getApiKey("corp")).toBe("kept");
  });

  it("refreshes an expired token once for concurrent callers and stores the refreshed one", async () => {
    const state = { refreshes: 0 };
    const auth = AuthStorage.create(file);
    auth.registerOAuthProvider(corpProvider(state));
    auth.set("corp", { type: "oauth", access: "old", refresh: "r", expires: Date.now() - 1, account: "a1" });
    const keys = await Promise.all([auth.getApiKey("corp"), auth.getApiKey("corp"), auth.getApiKey("corp")]);
    expect(keys).toEqual(["key:old+r1:a1", "key:old+r1:a1", "key:old+r1:a1"]);
    expect(state.refreshes).toBe(1);
    const stored = JSON.parse(readFileSync(file, "utf8")).corp;
    expect(stored.access).toBe("old+r1");
    expect(stored.expires).toBeGreaterThan(Date.now());
    // Synchronous callers get the stored key as it stands.
    expect(auth.getApiKeyNow("corp")).toBe("key:old+r1:a1");
  });

  it("keeps the credential and reports the error when a refresh fails", async () => {
    const state = { refreshes: 0, failRefresh: true };
    const auth = AuthStorage.create(file);
    auth.registerOAuthProvider(corpProvider(state));
    auth.set("corp", { type: "oauth", access: "old", refresh: "r", expires: Date.now() - 1 });
    expect(await auth.getApiKey("corp")).toBeUndefined();
    expect(auth.drainErrors().map((e) => e.message)).toEqual(["OAuth refresh of corp failed: refresh token revoked"]);
    expect(JSON.parse(readFileSync(file, "utf8")).corp).toMatchObject({ type: "oauth", access: "old", refresh: "r" });
  });

  it("ModelRegistry.registerProvider with `oauth` makes the login available until the provider is unregistered", async () => {
    const auth = AuthStorage.inMemory();
    const registry = ModelRegistry.inMemory(auth);
    const { id: _id, ...oauth } = corpProvider({ refreshes: 0 });
    registry.registerProvider("corp", {
      baseUrl: "http://127.0.0.1:9/v1",
      api: "openai-completions",
      models: [{ id: "corp-1" }],
      oauth,
    });
    await auth.login("corp", callbacks("z", []));
    expect(registry.isUsingOAuth({ provider: "corp" })).toBe(true);
    expect(await registry.getApiKeyForProvider("corp")).toBe("key:access-z:a1");
    expect(await registry.getApiKeyAndHeaders({ provider: "corp" })).toEqual({ ok: true, apiKey: "key:access-z:a1" });
    registry.unregisterProvider("corp");
    expect(auth.getOAuthProviders()).toEqual([]);
    await expect(auth.login("corp", callbacks("z", []))).rejects.toThrow("Unknown OAuth provider: corp");
  });
});
