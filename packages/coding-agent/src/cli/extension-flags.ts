/**
 * The command line's extension flags (pi's `--<flag>`): once the extensions are loaded, each `--name` the CLI
 * did not know must be a flag an extension registered; its value then reaches the extensions' `getFlag`.
 */
import type { ExtensionRunner } from "../extensions/runner.js";
import type { CliArgs } from "./args.js";
import { CliUsageError } from "./errors.js";

/**
 * Sets the values of `args.extensionFlags` on `runner`. A boolean flag is `true` (`--name=false` turns it off)
 * and gives the word it took back to the messages; a string flag needs a value. Throws CliUsageError naming
 * every option no extension registered, or a string flag without its value.
 */
export function applyExtensionFlags(args: CliArgs, runner: ExtensionRunner): void {
  if (args.extensionFlags.length === 0) return;
  const registered = runner.getFlags();
  const unknown = args.extensionFlags.filter((f) => !registered.has(f.name)).map((f) => `--${f.name}`);
  if (unknown.length > 0)
    throw new CliUsageError(
      `unknown option${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")} (no extension registers ${unknown.length === 1 ? "it" : "them"}). Run "tiller --help" for usage.`,
    );
  const giveBack: Array<{ text: string; at: number }> = [];
  for (const f of args.extensionFlags) {
    if (registered.get(f.name)?.type === "boolean") {
      runner.setFlagValue(f.name, f.value !== "false");
      if (f.next) giveBack.push(f.next);
      continue;
    }
    const value = f.value ?? f.next?.text;
    if (value === undefined) throw new CliUsageError(`--${f.name} needs a value`);
    runner.setFlagValue(f.name, value);
  }
  // Latest first, so each word lands where it stood among the messages.
  for (const w of giveBack.reverse()) args.messages.splice(w.at, 0, w.text);
}
