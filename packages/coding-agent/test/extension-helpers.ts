/** Tiller's ExtensionRunner and pi's, each given the same handlers, to compare what they answer. */
import * as pi from "@mariozechner/pi-coding-agent";
import { type ExtensionEventName, type ExtensionRunner, loadExtensions } from "../src/index.js";

// biome-ignore lint/suspicious/noExplicitAny: handlers of any event, called with each runner's event objects.
type AnyHandler = (event: any) => unknown;

/** One extension per handler (in order), each handling `event`, in a Tiller runner and in a pi runner. */
export async function bothRunners(
  event: ExtensionEventName,
  handlers: AnyHandler[],
): Promise<{ ours: ExtensionRunner; theirs: pi.ExtensionRunner }> {
  const ours = await loadExtensions({
    cwd: process.cwd(),
    noDiscovery: true,
    factories: handlers.map((h, i) => ({
      name: `ext${i}`,
      factory: (api) => api.on(event, (e) => h(e) as never),
    })),
  });
  const extensions = handlers.map((h, i) => ({
    path: `ext${i}`,
    resolvedPath: `ext${i}`,
    sourceInfo: pi.createSyntheticSourceInfo(`ext${i}`, { source: "test" }),
    handlers: new Map([[event, [async (e: unknown) => h(e)]]]),
    tools: new Map(),
    messageRenderers: new Map(),
    commands: new Map(),
    flags: new Map(),
    shortcuts: new Map(),
  }));
  const sm = pi.SessionManager.inMemory(process.cwd());
  const registry = pi.ModelRegistry.inMemory(pi.AuthStorage.inMemory());
  const theirs = new pi.ExtensionRunner(extensions as never, pi.createExtensionRuntime(), process.cwd(), sm, registry);
  return { ours, theirs };
}
