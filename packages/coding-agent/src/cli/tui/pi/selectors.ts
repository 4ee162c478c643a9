/**
 * pi's pickers over Tiller's `Selector` (../selector.ts: type to fuzzy-filter, ↑/↓, Enter, Esc) and its item
 * builders (../pickers.ts): thinking level, theme, image display, model, auth provider, and the user message to
 * fork from (the session and tree pickers have lists of their own: session-selector.ts, tree-selector.ts).
 * Each is a pi-tui `Container` that forwards keys to its selector and calls pi's `onSelect`/`onCancel` once,
 * with pi's argument types.
 */
import { Container, Input, type SelectItem, type SelectList } from "@mariozechner/pi-tui";
import type { ThinkingLevel } from "@tiller/agent";
import type { Api, Model } from "@tiller/ai";
import type { AuthStatus } from "../../../auth/index.js";
import type { ModelRegistry } from "../../../models/model-registry.js";
import type { SettingsManager } from "../../../settings/settings-manager.js";
import { findModel, firstLine, formatAge, modelItems } from "../pickers.js";
import { Selector, type SelectorOptions } from "../selector.js";
import { THEME_NAMES } from "./theme.js";

/** A container around one selector: keys go to it, and its answer to `onSelect` or `onCancel`. */
class SelectorHost extends Container {
  protected selector: Selector;
  private _focused = false;

  constructor(
    title: string,
    items: SelectItem[],
    options: SelectorOptions,
    onSelect: (value: string) => void,
    onCancel: () => void,
  ) {
    super();
    this.selector = this.mount(title, items, options, onSelect, onCancel);
  }

  /** Shows a new selector in place of the current one (a picker whose items change, e.g. sessions loaded). */
  protected mount(
    title: string,
    items: SelectItem[],
    options: SelectorOptions,
    onSelect: (value: string) => void,
    onCancel: () => void,
  ): Selector {
    const selector = new Selector(title, items, options);
    selector.done.then((value) => {
      // A replaced selector never answers.
      if (this.selector !== selector) return;
      if (value === undefined) onCancel();
      else onSelect(value);
    });
    this.clear();
    this.addChild(selector);
    this.selector = selector;
    return selector;
  }

  get focused(): boolean {
    return this._focused;
  }
  set focused(value: boolean) {
    this._focused = value;
  }

  handleInput(data: string): void {
    this.selector.handleInput(data);
  }

  getSelectList(): SelectList {
    return this.selector.getSelectList();
  }
}

const THINKING_HINTS: Record<string, string> = {
  off: "no reasoning",
  minimal: "a very short think",
  low: "light reasoning",
  medium: "moderate reasoning",
  high: "deep reasoning",
  xhigh: "the deepest reasoning the model offers",
};

export class ThinkingSelectorComponent extends SelectorHost {
  constructor(
    currentLevel: ThinkingLevel,
    availableLevels: ThinkingLevel[],
    onSelect: (level: ThinkingLevel) => void,
    onCancel: () => void,
  ) {
    const items = availableLevels.map((l) => ({ value: l, label: l, description: THINKING_HINTS[l] ?? "" }));
    super("Thinking level", items, { selected: currentLevel }, (v) => onSelect(v as ThinkingLevel), onCancel);
  }
}

/** The built-in themes; moving the cursor previews one. */
export class ThemeSelectorComponent extends SelectorHost {
  constructor(
    currentTheme: string,
    onSelect: (themeName: string) => void,
    onCancel: () => void,
    private onPreview: (themeName: string) => void,
  ) {
    const items = THEME_NAMES.map((n) => ({ value: n, label: n }));
    super("Theme", items, { selected: currentTheme }, onSelect, onCancel);
  }

  override handleInput(data: string): void {
    const before = this.selector.current;
    super.handleInput(data);
    const after = this.selector.current;
    if (after !== undefined && after !== before) this.onPreview(after);
  }
}

export class ShowImagesSelectorComponent extends SelectorHost {
  constructor(currentValue: boolean, onSelect: (show: boolean) => void, onCancel: () => void) {
    const items = [
      { value: "yes", label: "yes", description: "show images in the terminal" },
      { value: "no", label: "no", description: "show a note with the image's type and size" },
    ];
    super("Show images", items, { selected: currentValue ? "yes" : "no" }, (v) => onSelect(v === "yes"), onCancel);
  }
}

/** The models to choose from: the scoped ones (`--models`) when there are, else the whole catalog, keyed first. */
export class ModelSelectorComponent extends SelectorHost {
  private search = new Input();

  constructor(
    _tui: unknown,
    currentModel: Model<Api> | undefined,
    _settingsManager: SettingsManager,
    modelRegistry: ModelRegistry,
    scopedModels: ReadonlyArray<{ model: Model<Api>; thinkingLevel?: string }>,
    onSelect: (model: Model<Api>) => void,
    onCancel: () => void,
    initialSearchInput?: string,
  ) {
    const key = (m: Model<Api>) => `${m.provider}/${m.id}`;
    const scoped = new Map(scopedModels.map((s) => [key(s.model), s.model]));
    const items = scoped.size
      ? [...scoped.values()].map((m) => ({ value: key(m), label: key(m), description: m.name ?? "" }))
      : modelItems(modelRegistry);
    super(
      "Model",
      items,
      {
        ...(currentModel ? { selected: key(currentModel) } : {}),
        ...(initialSearchInput ? { filter: initialSearchInput } : {}),
      },
      (v) => {
        const model = scoped.get(v) ?? findModel(modelRegistry, v);
        if (model) onSelect(model);
        else onCancel();
      },
      onCancel,
    );
    this.search.setValue(initialSearchInput ?? "");
  }

  override handleInput(data: string): void {
    super.handleInput(data);
    this.search.setValue(this.selector.filterText);
  }

  /** The search text, as a pi-tui `Input` (kept equal to the filter typed in the picker). */
  getSearchInput(): Input {
    return this.search;
  }
}

export type AuthSelectorProvider = { id: string; name: string; authType: "oauth" | "api_key" };

/** Providers to log in to or out of, each with how it is authenticated now. */
export class OAuthSelectorComponent extends SelectorHost {
  constructor(
    mode: "login" | "logout",
    authStorage: { getAuthStatus(provider: string): AuthStatus },
    providers: AuthSelectorProvider[],
    onSelect: (providerId: string) => void,
    onCancel: () => void,
    getAuthStatus?: (providerId: string) => AuthStatus,
  ) {
    const status = getAuthStatus ?? ((id: string) => authStorage.getAuthStatus(id));
    const items = providers.map((p) => {
      const s = status(p.id);
      const how = p.authType === "oauth" ? "subscription login" : "API key";
      const state = s.configured ? `configured${s.source ? ` (${s.source})` : ""}` : "not configured";
      return { value: p.id, label: p.name, description: `${how} · ${state}` };
    });
    super(mode === "login" ? "Log in to" : "Log out of", items, {}, onSelect, onCancel);
  }
}

/** The user messages of the session, to fork a new session from one of them. */
export class UserMessageSelectorComponent extends SelectorHost {
  constructor(
    messages: Array<{ id: string; text: string; timestamp?: string }>,
    onSelect: (entryId: string) => void,
    onCancel: () => void,
    initialSelectedId?: string,
  ) {
    const items = messages.map((m) => ({
      value: m.id,
      label: firstLine(m.text),
      ...(m.timestamp ? { description: formatAge(new Date(m.timestamp)) } : {}),
    }));
    // Newest is where one usually forks from: selected first unless told otherwise.
    const selected = initialSelectedId ?? messages.at(-1)?.id;
    super("Fork from message", items, selected ? { selected } : {}, onSelect, onCancel);
  }

  /** The list of messages (Tiller's selector). */
  getMessageList(): Selector {
    return this.selector;
  }
}
