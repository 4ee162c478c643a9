/** Where a resource (extension, skill, prompt, tool) came from, as pi reports it. */

import { dirname } from "node:path";

export type SourceScope = "user" | "project" | "temporary";
export type SourceOrigin = "package" | "top-level";

export interface SourceInfo {
  path: string;
  /** Package source or a label such as "cli", "sdk" or "local". */
  source: string;
  scope: SourceScope;
  origin: SourceOrigin;
  baseDir?: string;
}

/** A SourceInfo for a resource that did not come from a package (scope "temporary", origin "top-level" by default). */
export function createSyntheticSourceInfo(
  path: string,
  options: { source: string; scope?: SourceScope; origin?: SourceOrigin; baseDir?: string },
): SourceInfo {
  return {
    path,
    source: options.source,
    scope: options.scope ?? "temporary",
    origin: options.origin ?? "top-level",
    ...(options.baseDir !== undefined ? { baseDir: options.baseDir } : {}),
  };
}

/** Where a tool or command of the extension file at `path` came from (pi's label for a local extension). */
export function localExtensionSource(path: string): SourceInfo {
  return createSyntheticSourceInfo(path, { source: "local", baseDir: dirname(path) });
}
