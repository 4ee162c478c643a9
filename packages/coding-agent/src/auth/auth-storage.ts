/**
 * `AuthStorage`: API keys per provider. Resolution order: a runtime key (`--api-key`, `setRuntimeApiKey`), then
 * `auth.json`, then the provider's environment variable. `auth.json` (pi's format: `{"<provider>": {"type":
 * "api_key", "key": "..."}}`) is written with mode 0600 under a cross-process lock, re-read inside the lock so
 * concurrent writers never drop each other's entries.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { getEnvApiKey } from "@tiller/ai";
import { getTillerPaths } from "../home.js";
import { withFileLock } from "./file-lock.js";

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

export class AuthStorage {
  private data: Record<string, AuthCredential> = {};
  private runtime = new Map<string, string>();
  /** Problems met while reading the file (it is then treated as empty, and never overwritten blindly). */
  errors: string[] = [];

  private constructor(readonly path: string | undefined) {
    this.reload();
  }

  /** Backed by `auth.json` of a Tiller home (default `$TILLER_HOME/auth.json`). */
  static create(path: string = getTillerPaths().auth): AuthStorage {
    return new AuthStorage(path);
  }
  static inMemory(data: Record<string, AuthCredential> = {}): AuthStorage {
    const s = new AuthStorage(undefined);
    s.data = { ...data };
    return s;
  }

  reload(): void {
    if (!this.path) return;
    this.errors = [];
    try {
      this.data = this.readFile();
    } catch (err) {
      this.errors.push((err as Error).message);
      this.data = {};
    }
  }

  private readFile(): Record<string, AuthCredential> {
    if (!this.path || !existsSync(this.path)) return {};
    try {
      const parsed = JSON.parse(readFileSync(this.path, "utf8")) as unknown;
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
        throw new Error("top level must be an object");
      return parsed as Record<string, AuthCredential>;
    } catch (err) {
      // Writers re-read inside the lock and stop here: a corrupt file is reported, never overwritten.
      throw new Error(`${this.path} is not valid JSON auth storage: ${(err as Error).message}`);
    }
  }

  private update(mutate: (data: Record<string, AuthCredential>) => void): void {
    if (!this.path) {
      mutate(this.data);
      return;
    }
    const path = this.path;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    withFileLock(path, () => {
      const current = this.readFile();
      mutate(current);
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(current, null, 2)}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, path);
      this.data = current;
    });
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
  hasAuth(provider: string): boolean {
    return this.getAuthSource(provider) !== undefined;
  }

  /** The key of `provider`: runtime, then file, then environment. */
  getApiKey(provider: string): string | undefined {
    return this.runtime.get(provider) ?? this.fileKey(provider) ?? getEnvApiKey(provider);
  }

  private fileKey(provider: string): string | undefined {
    const c = this.data[provider];
    if (!c) return undefined;
    if (c.type === "api_key" && typeof c.key === "string" && c.key) return c.key;
    if (typeof (c as OtherCredential).access === "string") return (c as OtherCredential).access as string;
    return undefined;
  }
}
