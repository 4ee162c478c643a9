/**
 * Where AuthStorage keeps its JSON (pi's `AuthStorageBackend`): every read-modify-write runs inside `withLock`,
 * which hands the current text (undefined when there is none) to `fn` and stores `next` when `fn` returns one.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { getTillerPaths } from "../home.js";
import { withFileLock } from "./file-lock.js";

export interface LockResult<T> {
  result: T;
  /** New content to store; omitted: unchanged. */
  next?: string;
}

export interface AuthStorageBackend {
  withLock<T>(fn: (current: string | undefined) => LockResult<T>): T;
  withLockAsync<T>(fn: (current: string | undefined) => Promise<LockResult<T>>): Promise<T>;
}

/**
 * `auth.json` under a cross-process lock file, replaced atomically (temp file + rename) with mode 0600. The
 * async form holds an in-process queue while `fn` runs and takes the file lock to read and again to write,
 * re-running `fn` when another process changed the file in between (so no update is lost).
 */
export class FileAuthStorageBackend implements AuthStorageBackend {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly authPath: string = getTillerPaths().auth) {}

  private read(): string | undefined {
    return existsSync(this.authPath) ? readFileSync(this.authPath, "utf8") : undefined;
  }

  private store(text: string): void {
    mkdirSync(dirname(this.authPath), { recursive: true, mode: 0o700 });
    const tmp = `${this.authPath}.${process.pid}.tmp`;
    writeFileSync(tmp, text, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.authPath);
  }

  withLock<T>(fn: (current: string | undefined) => LockResult<T>): T {
    mkdirSync(dirname(this.authPath), { recursive: true, mode: 0o700 });
    return withFileLock(this.authPath, () => {
      const { result, next } = fn(this.read());
      if (next !== undefined) this.store(next);
      return result;
    });
  }

  withLockAsync<T>(fn: (current: string | undefined) => Promise<LockResult<T>>): Promise<T> {
    const run = this.queue.then(async () => {
      for (let attempt = 0; ; attempt++) {
        const before = this.withLock((current) => ({ result: current }));
        const { result, next } = await fn(before);
        const stored = this.withLock((current) => {
          if (current !== before) return { result: false };
          return next === undefined ? { result: true } : { result: true, next };
        });
        if (stored) return result;
        if (attempt >= 4) throw new Error(`${this.authPath} kept changing while it was being updated`);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** Keeps the JSON text in memory (tests, embedders that store credentials elsewhere). */
export class InMemoryAuthStorageBackend implements AuthStorageBackend {
  private text: string | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  withLock<T>(fn: (current: string | undefined) => LockResult<T>): T {
    const { result, next } = fn(this.text);
    if (next !== undefined) this.text = next;
    return result;
  }

  withLockAsync<T>(fn: (current: string | undefined) => Promise<LockResult<T>>): Promise<T> {
    const run = this.queue.then(async () => {
      const { result, next } = await fn(this.text);
      if (next !== undefined) this.text = next;
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
