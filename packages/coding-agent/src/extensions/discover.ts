/**
 * pi's `discoverAndLoadExtensions`: configured paths plus the standard folders, loaded into one runner whose
 * runtime all the extensions share.
 */
import type { EventBus } from "../event-bus.js";
import { getTillerHome } from "../home.js";
import type { LoadExtensionsResult } from "./extension-runtime.js";
import { loadExtensions } from "./loader.js";
import type { ExtensionRunner } from "./runner.js";

/**
 * Loads the extensions in `configuredPaths` (files or folders, relative to `cwd`) after those discovered in
 * `<agentDir>/extensions` and `<cwd>/.tiller/extensions`; `eventBus` is the `events` every extension's API gets.
 * Never throws: failures are in `errors`.
 */
export async function discoverAndLoadExtensions(
  configuredPaths: string[],
  cwd: string,
  agentDir: string = getTillerHome(),
  eventBus?: EventBus,
): Promise<LoadExtensionsResult & { runner: ExtensionRunner }> {
  const runner = await loadExtensions({
    cwd,
    tillerHome: agentDir,
    paths: configuredPaths,
    ...(eventBus ? { eventBus } : {}),
  });
  return {
    extensions: [...runner.extensions],
    errors: runner.loadErrors.map((e) => ({ path: e.extensionPath, error: e.error })),
    runtime: runner.runtime,
    runner,
  };
}
