/** The session list: search, last activity, running state; "New session" at the top. */
import { ago, h } from "./dom.js";
import type { SessionRow } from "./types.js";

export interface SessionsPanelActions {
  open(key: string): void;
  create(): void;
  /** Pending approvals of a session (0 when none, or when this client cannot approve). */
  waiting(key: string): number;
}

export class SessionsPanel {
  readonly el: HTMLElement;
  private readonly list: HTMLElement;
  private readonly search: HTMLInputElement;
  private rows: SessionRow[] = [];
  private current = "";

  constructor(private readonly actions: SessionsPanelActions) {
    this.search = h("input", { type: "search", placeholder: "Search sessions", "aria-label": "Search sessions" });
    this.search.addEventListener("input", () => this.render());
    this.list = h("ul", { class: "session-list", "aria-label": "Sessions" });
    this.el = h(
      "nav",
      { class: "sessions", "aria-label": "Sessions" },
      h("button", { type: "button", class: "primary", onclick: () => this.actions.create() }, "New session"),
      this.search,
      this.list,
    );
  }

  update(rows: SessionRow[], current: string): void {
    this.rows = rows;
    this.current = current;
    this.render();
  }

  setCurrent(key: string): void {
    this.current = key;
    this.render();
  }

  private render(): void {
    const q = this.search.value.trim().toLowerCase();
    const rows = q
      ? this.rows.filter((r) => r.key.toLowerCase().includes(q) || (r.label ?? "").toLowerCase().includes(q))
      : this.rows;
    const items = rows.map((r) => {
      const running = Boolean(r.activeRunId);
      const waiting = this.actions.waiting(r.key);
      const name = r.label || shortKey(r.key);
      const btn = h(
        "button",
        {
          type: "button",
          class: "session-item",
          "aria-current": r.key === this.current ? "page" : undefined,
          "data-key": r.key,
          onclick: () => this.actions.open(r.key),
        },
        h("span", { class: "session-name" }, name),
        h(
          "span",
          { class: "session-meta" },
          running ? h("span", { class: "running", "aria-label": "running" }, "● running") : ago(r.updatedAt),
          r.queued ? ` · ${r.queued} queued` : "",
          waiting
            ? h("span", { class: "waiting" }, ` · ${waiting === 1 ? "approval needed" : `${waiting} approvals needed`}`)
            : "",
        ),
      );
      return h("li", {}, btn);
    });
    if (items.length === 0) items.push(h("li", { class: "empty" }, q ? "No session matches." : "No sessions yet."));
    this.list.replaceChildren(...items);
  }
}

/** "agent:main:demo" → "demo" (the default agent's prefix is noise in a list). */
export function shortKey(key: string): string {
  const m = /^agent:([^:]+):(.+)$/.exec(key);
  if (!m) return key;
  return m[1] === "main" ? (m[2] as string) : `${m[1]}/${m[2]}`;
}
