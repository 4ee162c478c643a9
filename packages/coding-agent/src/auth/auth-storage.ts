/**
 * `AuthStorage`: API keys per provider. Resolution order: a runtime key (`--api-key`, `setRuntimeApiKey`), then
 * `auth.json`, then the provider's environment variable. `auth.json` (pi's format: `{"<provider>": {"type":
 * "api_key", "key": "..."}}`) is written with mode 0600 under a cross-process lock, re-read inside the lock so
 * concurrent writers never drop each other's entries.
 */
import { getEnvApiKey, type OAuthLoginCallbacks, type OAuthProviderInterface } from "@tiller/ai";
import { getTillerPaths } from "../home.js";
import { type AuthStorageBackend, FileAuthStorageBackend } from "./auth-backends.js";

export interface ApiKeyCredential {
  type: "api_key";
  key: string;
}
/**
 * A credential of a kind neither pi nor Tiller writes: kept as written in the file (never dropped on a rewrite),
 * its `access`, if any, read as a bearer key. Not part of `AuthCredential`, pi's union, which code may narrow on.
 */
export interface OtherCredential {
  type: string;
  [field: string]: unknown;
}

export type AuthSource = "runtime" | "file" | "env";

/** pi's OAuth credential shape (stored by `login`; read through its provider's `getApiKey`). */
export interface OAuthCredential {
  type: "oauth";
  access: string;
  refresh: string;
  expires: number;
  [field: string]: unknown;
}

/** What `auth.json` holds per provider (pi's union). */
export type AuthCredential = ApiKeyCredential | OAuthCredential;

/** Whether a provider has a key, and where it would come from (pi's shape). */
export interface AuthStatus {
  configured: boolean;
  source?: "stored" | "runtime" | "environment" | "fallback" | "models_json_key" | "models_json_command";
  label?: string;
}

export class AuthStorage {
  private data: Record<string, AuthCredential> = {};
  private runtime = new Map<string, string>();
  /** Problems met while reading the file (it is then treated as empty, and never overwritten blindly). */
  errors: string[] = [];

  private fallback: ((provider: string) => string | undefined) | undefined;
  /**
   * The OAuth providers `login` can use, by id. pi keeps one process-wide list with its built-in vendor logins;
   * Tiller ships none (they drive vendors' web pages) and keeps the ones registered here, e.g. by
   * `ModelRegistry.registerProvider` with `oauth`, so two storages in one process do not share logins.
   */
  private oauthProviders = new Map<string, OAuthProviderInterface>();

  private constructor(
    readonly path: string | undefined,
    private readonly backend: AuthStorageBackend | undefined,
  ) {
    this.reload();
  }

  /** Backed by `auth.json` of a Tiller home (default `$TILLER_HOME/auth.json`). */
  static create(path: string = getTillerPaths().auth): AuthStorage {
    return new AuthStorage(path, new FileAuthStorageBackend(path));
  }
  /** Backed by any store (pi's `fromStorage`). */
  static fromStorage(storage: AuthStorageBackend): AuthStorage {
    return new AuthStorage(undefined, storage);
  }
  static inMemory(data: Record<string, AuthCredential> = {}): AuthStorage {
    const s = new AuthStorage(undefined, undefined);
    s.data = { ...data };
    return s;
  }

  reload(): void {
    if (!this.backend) return;
    this.errors = [];
    try {
      this.data = this.backend.withLock((current) => ({ result: this.parse(current) }));
    } catch (err) {
      this.errors.push((err as Error).message);
      this.data = {};
    }
  }

  private parse(text: string | undefined): Record<string, AuthCredential> {
    if (text === undefined) return {};
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
        throw new Error("top level must be an object");
      return parsed as Record<string, AuthCredential>;
    } catch (err) {
      // Writers re-read inside the lock and stop here: a corrupt file is reported, never overwritten.
      throw new Error(`${this.path ?? "auth storage"} is not valid JSON auth storage: ${(err as Error).message}`);
    }
  }

  private update(mutate: (data: Record<string, AuthCredential>) => void): void {
    if (!this.backend) {
      mutate(this.data);
      return;
    }
    this.data = this.backend.withLock((text) => {
      const current = this.parse(text);
      mutate(current);
      return { result: current, next: `${JSON.stringify(current, null, 2)}\n` };
    });
  }

  /** Every stored credential (a copy). */
  getAll(): Record<string, AuthCredential> {
    return { ...this.data };
  }
  /** Returns and clears the problems met while reading. */
  drainErrors(): Error[] {
    const out = this.errors.map((m) => new Error(m));
    this.errors = [];
    return out;
  }
  /** Removes the stored credential of `provider` (pi's name for `remove`). */
  logout(provider: string): void {
    this.remove(provider);
  }
  /** Makes `provider` available to `login` and `getOAuthProviders` (a later one with the same id replaces it). */
  registerOAuthProvider(provider: OAuthProviderInterface): void {
    this.oauthProviders.set(provider.id, provider);
  }
  unregisterOAuthProvider(id: string): void {
    this.oauthProviders.delete(id);
  }
  /** The registered OAuth providers (pi's; Tiller's list holds only registered ones). */
  getOAuthProviders(): OAuthProviderInterface[] {
    return [...this.oauthProviders.values()];
  }
  /**
   * Runs the provider's login flow and stores what it returns as the provider's `oauth` credential. An unknown
   * provider, or a flow that fails, changes nothing stored.
   */
  async login(providerId: string, callbacks: OAuthLoginCallbacks): Promise<void> {
    const provider = this.oauthProviders.get(providerId);
    if (!provider) throw new Error(`Unknown OAuth provider: ${providerId}`);
    const credentials = await provider.login(callbacks);
    this.set(providerId, { ...credentials, type: "oauth" });
  }

  /** Consulted last, after the environment (e.g. keys from models.json). */
  setFallbackResolver(resolver: (provider: string) => string | undefined): void {
    this.fallback = resolver;
  }

  get(provider: string): AuthCredential | undefined {
    return this.data[provider];
  }
  set(provider: string, credential: AuthCredential): void {
    this.update((d) => {
      d[provider] = credential;
    });
  }
  /** Stores an API key in the file. */
  setApiKey(provider: string, key: string): void {
    this.set(provider, { type: "api_key", key });
  }
  remove(provider: string): void {
    this.update((d) => {
      delete d[provider];
    });
  }
  list(): string[] {
    return Object.keys(this.data);
  }
  has(provider: string): boolean {
    return provider in this.data;
  }
  /** A key for this process only (never written), e.g. from `--api-key`. */
  setRuntimeApiKey(provider: string, key: string): void {
    this.runtime.set(provider, key);
  }
  removeRuntimeApiKey(provider: string): void {
    this.runtime.delete(provider);
  }

  /** Where the key of `provider` would come from, if any. */
  getAuthSource(provider: string): AuthSource | undefined {
    if (this.runtime.has(provider)) return "runtime";
    if (this.fileKey(provider)) return "file";
    if (getEnvApiKey(provider)) return "env";
    return undefined;
  }
  getAuthStatus(provider: string): AuthStatus {
    const source = this.getAuthSource(provider);
    if (source === "runtime") return { configured: true, source: "runtime" };
    if (source === "file") return { configured: true, source: "stored" };
    if (source === "env") return { configured: true, source: "environment" };
    return this.fallback?.(provider) ? { configured: true, source: "fallback" } : { configured: false };
  }
  hasAuth(provider: string): boolean {
    return this.getAuthSource(provider) !== undefined;
  }

  /**
   * The key of `provider`: runtime, then the stored credential, then the environment, then the fallback resolver
   * (unless `includeFallback: false`). An expired OAuth credential of a registered provider is refreshed first,
   * under the storage's lock, and the refreshed one stored; when the refresh fails the stored one is kept (a
   * later `login` or refresh can still use it) and the key is undefined unless another process refreshed it.
   */
  async getApiKey(provider: string, options?: { includeFallback?: boolean }): Promise<string | undefined> {
    if (!this.runtime.has(provider) && this.expiredOAuth(provider)) {
      try {
        await this.refreshOAuth(provider);
      } catch (err) {
        // Another process may have refreshed it meanwhile: re-read (which resets the read errors) first.
        this.reload();
        this.errors.push(`OAuth refresh of ${provider} failed: ${(err as Error).message}`);
        if (this.expiredOAuth(provider)) return undefined;
      }
    }
    return this.getApiKeyNow(provider, options);
  }

  /** The key of `provider` as stored now, without refreshing an expired OAuth token (for synchronous callers). */
  getApiKeyNow(provider: string, options?: { includeFallback?: boolean }): string | undefined {
    return (
      this.runtime.get(provider) ??
      this.fileKey(provider) ??
      getEnvApiKey(provider) ??
      (options?.includeFallback === false ? undefined : this.fallback?.(provider))
    );
  }

  private expiredOAuth(id: string): boolean {
    const c = this.data[id];
    return c?.type === "oauth" && this.oauthProviders.has(id) && Date.now() >= c.expires;
  }

  /** Refreshes the stored OAuth credential of `id` unless it is fresh by the time the lock is held. */
  private async refreshOAuth(id: string): Promise<void> {
    const provider = this.oauthProviders.get(id);
    if (!provider) return;
    const refresh = async (data: Record<string, AuthCredential>): Promise<boolean> => {
      const c = data[id];
      if (c?.type !== "oauth" || Date.now() < c.expires) return false;
      data[id] = { ...(await provider.refreshToken(c)), type: "oauth" };
      return true;
    };
    if (!this.backend) {
      await refresh(this.data);
      return;
    }
    this.data = await this.backend.withLockAsync(async (text) => {
      const current = this.parse(text);
      const changed = await refresh(current);
      return changed ? { result: current, next: `${JSON.stringify(current, null, 2)}\n` } : { result: current };
    });
  }

  private fileKey(id: string): string | undefined {
    const c = this.data[id];
    if (!c) return undefined;
    if (c.type === "api_key" && typeof c.key === "string" && c.key) return c.key;
    if (c.type === "oauth") {
      // The provider knows how its tokens become a key (some add account data); otherwise the access token.
      const provider = this.oauthProviders.get(id);
      if (provider) return provider.getApiKey(c as OAuthCredential) || undefined;
    }
    if (typeof (c as OtherCredential).access === "string") return (c as OtherCredential).access as string;
    return undefined;
  }
}
