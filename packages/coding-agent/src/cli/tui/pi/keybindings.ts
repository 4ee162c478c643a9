/**
 * pi's keybindings: the application actions on top of pi-tui's editor and list bindings, user overrides read
 * from `keybindings.json` in the agent directory, and the hint helpers (`keyText`, `keyHint`, `rawKeyHint`) that
 * print a binding's keys the way the footer and the pickers show them.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  getKeybindings,
  type Keybinding,
  type KeybindingDefinitions,
  type KeybindingsConfig,
  type KeyId,
  TUI_KEYBINDINGS,
  KeybindingsManager as TuiKeybindingsManager,
} from "@mariozechner/pi-tui";
import { getAgentDir } from "../../../config.js";
import { currentTheme } from "./theme.js";
import type { AppKeybinding } from "./types.js";

const isWindows = process.platform === "win32";

/** Default keys of the application actions (the keys Tiller's interactive UI answers to). */
export const APP_KEYBINDINGS: Record<AppKeybinding, { defaultKeys: KeyId | KeyId[]; description: string }> = {
  "app.interrupt": { defaultKeys: "escape", description: "Abort the run or close the dialog" },
  "app.clear": { defaultKeys: "ctrl+c", description: "Clear the editor" },
  "app.exit": { defaultKeys: "ctrl+d", description: "Quit (editor empty)" },
  "app.suspend": { defaultKeys: isWindows ? [] : "ctrl+z", description: "Suspend to the shell" },
  "app.thinking.cycle": { defaultKeys: "shift+tab", description: "Next thinking level" },
  "app.model.cycleForward": { defaultKeys: "ctrl+p", description: "Next model" },
  "app.model.cycleBackward": { defaultKeys: "shift+ctrl+p", description: "Previous model" },
  "app.model.select": { defaultKeys: "ctrl+l", description: "Pick a model" },
  "app.tools.expand": { defaultKeys: "ctrl+o", description: "Expand or collapse tool output" },
  "app.thinking.toggle": { defaultKeys: "ctrl+t", description: "Show or hide thinking" },
  "app.session.toggleNamedFilter": { defaultKeys: "ctrl+n", description: "Only named sessions" },
  "app.editor.external": { defaultKeys: "ctrl+g", description: "Edit in $EDITOR" },
  "app.message.followUp": { defaultKeys: "alt+enter", description: "Queue a follow-up" },
  "app.message.dequeue": { defaultKeys: "alt+up", description: "Take back queued messages" },
  "app.clipboard.pasteImage": { defaultKeys: isWindows ? "alt+v" : "ctrl+v", description: "Paste an image" },
  "app.session.new": { defaultKeys: [], description: "New session" },
  "app.session.tree": { defaultKeys: [], description: "Session tree" },
  "app.session.fork": { defaultKeys: [], description: "Fork the session" },
  "app.session.resume": { defaultKeys: [], description: "Resume a session" },
  "app.tree.foldOrUp": { defaultKeys: ["ctrl+left", "alt+left"], description: "Fold or go up" },
  "app.tree.unfoldOrDown": { defaultKeys: ["ctrl+right", "alt+right"], description: "Unfold or go down" },
  "app.tree.editLabel": { defaultKeys: "shift+l", description: "Edit the label" },
  "app.tree.toggleLabelTimestamp": { defaultKeys: "shift+t", description: "Label timestamps" },
  "app.session.togglePath": { defaultKeys: "ctrl+p", description: "Show paths" },
  "app.session.toggleSort": { defaultKeys: "ctrl+s", description: "Sort order" },
  "app.session.rename": { defaultKeys: "ctrl+r", description: "Rename" },
  "app.session.delete": { defaultKeys: "ctrl+d", description: "Delete" },
  "app.session.deleteNoninvasive": { defaultKeys: "ctrl+backspace", description: "Delete (empty search)" },
  "app.models.save": { defaultKeys: "ctrl+s", description: "Save the selection" },
  "app.models.enableAll": { defaultKeys: "ctrl+a", description: "Enable all" },
  "app.models.clearAll": { defaultKeys: "ctrl+x", description: "Clear all" },
  "app.models.toggleProvider": { defaultKeys: "ctrl+p", description: "Toggle the provider" },
  "app.models.reorderUp": { defaultKeys: "alt+up", description: "Move up" },
  "app.models.reorderDown": { defaultKeys: "alt+down", description: "Move down" },
  "app.tree.filter.default": { defaultKeys: "ctrl+d", description: "Filter: default" },
  "app.tree.filter.noTools": { defaultKeys: "ctrl+t", description: "Filter: no tool results" },
  "app.tree.filter.userOnly": { defaultKeys: "ctrl+u", description: "Filter: user messages" },
  "app.tree.filter.labeledOnly": { defaultKeys: "ctrl+l", description: "Filter: labeled" },
  "app.tree.filter.all": { defaultKeys: "ctrl+a", description: "Filter: everything" },
  "app.tree.filter.cycleForward": { defaultKeys: "ctrl+o", description: "Next filter" },
  "app.tree.filter.cycleBackward": { defaultKeys: "shift+ctrl+o", description: "Previous filter" },
};

const DEFINITIONS: KeybindingDefinitions = { ...TUI_KEYBINDINGS, ...APP_KEYBINDINGS };

/** `keybindings.json`: action → key or keys. A missing file is no overrides; a malformed one is an error. */
function readBindings(path: string | undefined): KeybindingsConfig {
  if (!path || !existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`${path}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw new Error(`${path}: expected an object`);
  const out: KeybindingsConfig = {};
  for (const [action, keys] of Object.entries(raw)) {
    const ok = typeof keys === "string" || (Array.isArray(keys) && keys.every((k) => typeof k === "string"));
    if (!ok) throw new Error(`${path}: "${action}" must be a key or a list of keys`);
    out[action] = keys as KeyId | KeyId[];
  }
  return out;
}

/**
 * pi-tui's keybindings manager with the application actions added and user overrides from a file. The file path
 * is kept in a closure (no private field) so pi's manager and this one have the same public surface.
 */
export class KeybindingsManager extends TuiKeybindingsManager {
  /** Reads the overrides file again (after the user edited it). */
  readonly reload: () => void;

  constructor(userBindings: KeybindingsConfig = {}, configPath?: string) {
    super(DEFINITIONS, userBindings);
    this.reload = () => {
      if (configPath) this.setUserBindings(readBindings(configPath));
    };
  }

  /** The manager for an agent directory (default: Tiller's home), with its `keybindings.json` applied. */
  static create(agentDir: string = getAgentDir()): KeybindingsManager {
    const path = join(agentDir, "keybindings.json");
    return new KeybindingsManager(readBindings(path), path);
  }

  /** Every action with the keys it answers to now (defaults with the overrides applied). */
  getEffectiveConfig(): KeybindingsConfig {
    return this.getResolvedBindings();
  }
}

/**
 * The keybindings a UI starts with: `keybindings.json` of the agent directory, or the defaults and a warning
 * when that file is malformed (a bad file should not keep the UI from starting).
 */
export function loadKeybindings(agentDir?: string): { manager: KeybindingsManager; warning?: string } {
  try {
    return { manager: KeybindingsManager.create(agentDir) };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { manager: new KeybindingsManager(), warning: `${why}; using the default keys` };
  }
}

function isAppBinding(name: string): name is AppKeybinding {
  return Object.hasOwn(APP_KEYBINDINGS, name);
}

/**
 * The keys of a binding, `/`-separated (`escape/ctrl+c`), from the manager installed with pi-tui's
 * `setKeybindings`; an application action that manager does not know falls back to its default keys.
 */
export function keyText(keybinding: string): string {
  let keys = getKeybindings().getKeys(keybinding as Parameters<TuiKeybindingsManager["getKeys"]>[0]);
  if (keys.length === 0 && isAppBinding(keybinding)) {
    const d = APP_KEYBINDINGS[keybinding].defaultKeys;
    keys = Array.isArray(d) ? d : [d];
  }
  return keys.join("/");
}

/** `keys description`: the keys dim, the description muted. */
export function keyHint(keybinding: string, description: string): string {
  return rawKeyHint(keyText(keybinding), description);
}

/** A hint for keys given as text. */
export function rawKeyHint(key: string, description: string): string {
  const t = currentTheme();
  return t.fg("dim", key) + t.fg("muted", ` ${description}`);
}

let defaultManager: KeybindingsManager | undefined;

/**
 * Whether `data` is one of the keys of `action` (an application action or one of pi-tui's), as pi's pickers read
 * them: from `manager` when given, else from the manager installed with `setKeybindings` when it knows the
 * application actions (pi's interactive mode installs one), else from the defaults.
 */
export function isActionKey(
  data: string,
  action: AppKeybinding | Keybinding,
  manager?: TuiKeybindingsManager,
): boolean {
  let kb = manager ?? getKeybindings();
  if (!manager && !kb.getDefinition("app.session.toggleSort" as Keybinding)) {
    defaultManager ??= new KeybindingsManager();
    kb = defaultManager;
  }
  return kb.matches(data, action as Keybinding);
}
