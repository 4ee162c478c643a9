/**
 * The open session's header: its name (editable: renames it), the per-session settings sessions.patch
 * takes (model, thinking level, queue mode), its token and cost totals, and reset / compact / delete.
 */
import { h, tokens, usd } from "./dom.js";
import { shortKey } from "./sessions-panel.js";
import { QUEUE_MODES, type SessionRow, THINKING_LEVELS } from "./types.js";

export interface HeaderActions {
  patch(fields: Record<string, string | null>): void;
  reset(): void;
  compact(): void;
  remove(): void;
}

function select(label: string, options: readonly string[], onchange: (v: string | null) => void): HTMLSelectElement {
  const el = h("select", { "aria-label": label });
  el.addEventListener("change", () => onchange(el.value === "" ? null : el.value));
  setOptions(el, options);
  return el;
}

function setOptions(el: HTMLSelectElement, options: readonly string[]): void {
  el.replaceChildren(h("option", { value: "" }, "default"), ...options.map((o) => h("option", { value: o }, o)));
}

export class SessionHeader {
  readonly el: HTMLElement;
  private readonly name: HTMLInputElement;
  private readonly model: HTMLSelectElement;
  private readonly thinking: HTMLSelectElement;
  private readonly queue: HTMLSelectElement;
  private readonly usage: HTMLElement;

  constructor(actions: HeaderActions) {
    this.name = h("input", { type: "text", class: "session-title", "aria-label": "Session name", maxlength: 100 });
    const rename = (): void => {
      const v = this.name.value.trim();
      if (v !== (this.name.dataset.saved ?? "")) actions.patch({ label: v || null });
    };
    this.name.addEventListener("keydown", (e) => {
      if (e.isComposing) return;
      if (e.key === "Enter") {
        e.preventDefault();
        rename();
      } else if (e.key === "Escape") {
        this.name.value = this.name.dataset.saved ?? "";
        this.name.blur();
      }
    });
    this.name.addEventListener("change", rename);
    this.model = select("Model", [], (v) => actions.patch({ model: v }));
    this.thinking = select("Thinking level", THINKING_LEVELS, (v) => actions.patch({ thinkingLevel: v }));
    this.queue = select("Queue mode", QUEUE_MODES, (v) => actions.patch({ queueMode: v }));
    this.usage = h("span", { class: "session-usage", "aria-label": "Session usage" });
    // On narrow screens the settings fold behind this toggle so the transcript keeps the room.
    const toggle = h("button", { type: "button", class: "settings-toggle", "aria-expanded": "false" }, "Settings");
    toggle.addEventListener("click", () => {
      toggle.setAttribute("aria-expanded", String(this.el.classList.toggle("open")));
    });
    this.el = h(
      "header",
      { class: "session-header" },
      this.name,
      toggle,
      h(
        "div",
        { class: "session-controls", id: "session-controls" },
        h("label", {}, "Model ", this.model),
        h("label", {}, "Thinking ", this.thinking),
        h("label", {}, "Queue ", this.queue),
        this.usage,
        h("button", { type: "button", onclick: () => actions.compact() }, "Compact"),
        h("button", { type: "button", onclick: () => actions.reset() }, "Reset"),
        h("button", { type: "button", class: "danger", onclick: () => actions.remove() }, "Delete"),
      ),
    );
  }

  setModels(refs: readonly string[]): void {
    const keep = this.model.value;
    setOptions(this.model, refs);
    this.model.value = keep;
  }

  show(key: string, row: SessionRow | undefined): void {
    const label = row?.label ?? "";
    this.name.dataset.saved = label;
    if (document.activeElement !== this.name) this.name.value = label || shortKey(key);
    if (!label) this.name.dataset.saved = shortKey(key);
    // The session's own choice (a `provider/id` ref) when it has one; else the model its runs resolve to.
    this.model.value =
      row?.modelOverride ?? (row?.modelProvider && row.model ? `${row.modelProvider}/${row.model}` : "");
    this.thinking.value = row?.thinkingLevel ?? "";
    this.queue.value = row?.queueMode ?? "";
    const cost = usd(row?.estimatedCostUsd);
    this.usage.textContent = row
      ? `${tokens(row.inputTokens)} in · ${tokens(row.outputTokens)} out${cost ? ` · ${cost}` : ""}`
      : "new session";
  }
}
