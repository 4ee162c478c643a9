/** pi's configuration names for Tiller's: the agent directory is the Tiller home, `VERSION` the package's. */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getTillerHome } from "./home.js";

/** pi's `getAgentDir`: where settings, auth, models and sessions live (`$TILLER_HOME`, default `~/.tiller`). */
export function getAgentDir(): string {
  return getTillerHome();
}

function readPackageVersion(): string {
  // src/config.ts and dist/config.js both sit one level below the package root.
  const file = join(dirname(fileURLToPath(import.meta.url)), "..", "package.json");
  try {
    const pkg = JSON.parse(readFileSync(file, "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/** The version of @tiller/coding-agent. */
export const VERSION: string = readPackageVersion();
