/**
 * Where Tiller keeps its per-user state. `TILLER_HOME` (default `~/.tiller`) holds `settings.json`, `auth.json`,
 * `models.json` and `sessions/`, with one sessions sub-directory per working directory (same encoding as pi, so
 * a directory listing reads like pi's).
 */
import { mkdirSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** `$TILLER_HOME`, else `~/.tiller`. Resolved on every call so tests can point it at a temp dir. */
export function getTillerHome(): string {
  const fromEnv = process.env.TILLER_HOME;
  return resolve(fromEnv && fromEnv.length > 0 ? fromEnv : join(homedir(), ".tiller"));
}

/** Paths of the files under a home directory (default `getTillerHome()`). Nothing is created. */
export interface TillerPaths {
  home: string;
  settings: string;
  auth: string;
  models: string;
  sessions: string;
}

export function getTillerPaths(home: string = getTillerHome()): TillerPaths {
  return {
    home,
    settings: join(home, "settings.json"),
    auth: join(home, "auth.json"),
    models: join(home, "models.json"),
    sessions: join(home, "sessions"),
  };
}

/** Directory name for a working directory: `/a/b` → `--a-b--` (pi's encoding). */
export function encodeCwd(cwd: string): string {
  return `--${resolve(cwd)
    .replace(/^[/\\]/, "")
    .replace(/[/\\:]/g, "-")}--`;
}

/** Sessions directory of `cwd` under `home`; created when `create` is true (default). */
export function getSessionDir(cwd: string, home: string = getTillerHome(), create = true): string {
  const dir = join(getTillerPaths(home).sessions, encodeCwd(cwd));
  if (create) mkdirSync(dir, { recursive: true });
  return dir;
}
