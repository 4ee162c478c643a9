import { homedir } from "node:os";
import { join } from "node:path";

/**
 * Tiller's per-user folder: `$TILLER_HOME` when set, else `~/.tiller`.
 * Holds skills/, prompts/, extensions/, AGENTS.md and the settings the session layer reads.
 */
export function resolveTillerHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TILLER_HOME;
  return fromEnv && fromEnv.length > 0 ? fromEnv : join(homedir(), ".tiller");
}

/** The project folder Tiller reads inside the working folder: `<cwd>/.tiller`. */
export function getProjectTillerDir(cwd: string): string {
  return join(cwd, ".tiller");
}
