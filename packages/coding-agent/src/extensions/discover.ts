/**
 * pi's `discoverAndLoadExtensions`: configured paths plus the standard folders, loaded into one runner whose
 * runtime all the extensions share.
 */
import type { EventBus } from "../event-bus.js";
import { getTillerHome } from "../home.js";
import type { LoadExtensionsResult } from "./extension-runtime.js";
import { loadExtensions } from "./loader.js";

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
): Promise<LoadExtensionsResult> {
  const runner = await loadExtensions({
    cwd,
    tillerHome: agentDir,
    paths: configuredPaths,
    ...(eventBus ? { eventBus } : {}),
  });
  // The loaded objects themselves, not copies: their tools call the context of the runner that holds them last
  // (a pi host builds its own runner over them).
  const extensions = runner.extensions.map((e) => Object.assign(e, { resolvedPath: e.path }));
  return {
    extensions,
    errors: runner.loadErrors.map((e) => ({ path: e.extensionPath, error: e.error })),
    runtime: runner.runtime,
    runner,
  };
}
