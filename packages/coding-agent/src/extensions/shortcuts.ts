/**
 * Which extension shortcuts the interactive UI binds (pi's `getShortcuts`): keys of the editor-global built-in
 * actions stay theirs (the shortcut is skipped), a key of another built-in action goes to the extension, and
 * between extensions the later one wins. Each such case is a warning diagnostic, so the user learns why a key
 * does not do what an extension announced.
 */
import type { KeyId } from "@mariozechner/pi-tui";
import type { ResourceDiagnostic } from "../runtime/resource-loader.js";
import type { ExtensionShortcut } from "./types.js";

/**
 * The built-in actions an extension may not take over: without them the editor cannot be used or left. Picker
 * bindings are not listed (a picker has the keys only while it is open).
 */
export const RESERVED_KEYBINDINGS: readonly string[] = [
  "app.interrupt",
  "app.clear",
  "app.exit",
  "app.suspend",
  "app.thinking.cycle",
  "app.model.cycleForward",
  "app.model.cycleBackward",
  "app.model.select",
  "app.tools.expand",
  "app.thinking.toggle",
  "app.editor.external",
  "app.message.followUp",
  "tui.input.submit",
  "tui.select.confirm",
  "tui.select.cancel",
  "tui.input.copy",
  "tui.editor.deleteToLineEnd",
];

/** Action → key or keys, as a keybindings manager resolves them (defaults with the user's overrides). */
export type ResolvedKeybindings = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * The shortcuts to bind, by lower-cased key id, and the diagnostics of the conflicts met. `shortcuts` are in
 * load order of their extensions.
 */
export function resolveShortcuts(
  shortcuts: Iterable<ExtensionShortcut>,
  keybindings: ResolvedKeybindings,
): { shortcuts: Map<KeyId, ExtensionShortcut>; diagnostics: ResourceDiagnostic[] } {
  // Key → the built-in action it triggers; a reserved action wins a key two actions share.
  const builtin = new Map<string, { action: string; reserved: boolean }>();
  for (const [action, keys] of Object.entries(keybindings)) {
    if (keys === undefined) continue;
    const reserved = RESERVED_KEYBINDINGS.includes(action);
    for (const key of typeof keys === "string" ? [keys] : keys) {
      const k = key.toLowerCase();
      if (builtin.get(k)?.reserved && !reserved) continue;
      builtin.set(k, { action, reserved });
    }
  }
  const out = new Map<KeyId, ExtensionShortcut>();
  const diagnostics: ResourceDiagnostic[] = [];
  const warn = (message: string, path: string) => diagnostics.push({ type: "warning", message, path });
  for (const s of shortcuts) {
    // Key ids are lower case; one registered in upper case is the same key.
    const key = s.shortcut.toLowerCase() as KeyId;
    const taken = builtin.get(key);
    if (taken?.reserved) {
      warn(`shortcut ${s.shortcut} of ${s.extensionPath} is the built-in ${taken.action}: skipped`, s.extensionPath);
      continue;
    }
    if (taken) {
      warn(
        `shortcut ${s.shortcut} of ${s.extensionPath} replaces the built-in ${taken.action} (that key now runs the extension's)`,
        s.extensionPath,
      );
    }
    const earlier = out.get(key);
    if (earlier) {
      warn(
        `shortcut ${s.shortcut} is registered by ${earlier.extensionPath} and ${s.extensionPath}; ${s.extensionPath}'s is used`,
        s.extensionPath,
      );
    }
    out.set(key, s);
  }
  return { shortcuts: out, diagnostics };
}
