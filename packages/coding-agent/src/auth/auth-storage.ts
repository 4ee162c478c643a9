/**
 * `AuthStorage`: API keys per provider. Resolution order: a runtime key (`--api-key`, `setRuntimeApiKey`), then
 * `auth.json`, then the provider's environment variable. `auth.json` (pi's format: `{"<provider>": {"type":
 * "api_key", "key": "..."}}`) is written with mode 0600 under a cross-process lock, re-read inside the lock so
 * concurrent writers never drop each other's entries.
 */
import { getEnvApiKey } from "@tiller/ai";
import { getTillerPaths } from "../home.js";
import { type AuthStorageBackend, FileAuthStorageBackend } from "./auth-backends.js";

export interface ApiKeyCredential {
  type: "api_key";
  key: string;
}
/** OAuth and other credential kinds are kept as written (Tiller only reads `access` as a bearer key). */
export interface OtherCredential {
  type: string;
  [field: string]: unknown;
}
export type AuthCredential = ApiKeyCredential | OtherCredential;

export type AuthSource = "runtime" | "file" | "env";

/** pi's OAuth credential shape (Tiller stores and reads it; it runs no OAuth login flow). */
export interface OAuthCredential {
  type: "oauth";
  access: string;
  refresh: string;
  expires: number;
  [field: string]: unknown;
}

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

  /** The key of `provider`: runtime, then file, then environment. */
  getApiKey(provider: string): string | undefined {
    return this.runtime.get(provider) ?? this.fileKey(provider) ?? getEnvApiKey(provider) ?? this.fallback?.(provider);
  }

  private fileKey(provider: string): string | undefined {
    const c = this.data[provider];
    if (!c) return undefined;
    if (c.type === "api_key" && typeof c.key === "string" && c.key) return c.key;
    if (typeof (c as OtherCredential).access === "string") return (c as OtherCredential).access as string;
    return undefined;
  }
}
