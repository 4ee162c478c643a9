/**
 * The composer: a "Message" textbox with Send, Follow up and Stop. It stays usable while a run is active:
 * Send then steers the run, Follow up queues a turn for after it, Stop aborts it. Messages not yet
 * delivered are listed above the textbox. Enter sends; Shift+Enter breaks the line.
 */
import { h } from "./dom.js";

export interface ComposerActions {
  send(text: string): void;
  followUp(text: string): void;
  stop(): void;
  cancelPending(id: string): void;
}

export interface PendingItem {
  id: string;
  kind: "steer" | "followup";
  text: string;
}

export class Composer {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private readonly pending: HTMLElement;
  private readonly stopBtn: HTMLButtonElement;
  private readonly sendBtn: HTMLButtonElement;
  private readonly hint: HTMLElement;

  constructor(private readonly actions: ComposerActions) {
    this.input = h("textarea", {
      rows: 2,
      "aria-label": "Message",
      placeholder: "Message (Enter sends, Shift+Enter: new line)",
    });
    this.input.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        this.submit("send");
      }
    });
    this.sendBtn = h("button", { type: "button", class: "primary", onclick: () => this.submit("send") }, "Send");
    this.stopBtn = h(
      "button",
      { type: "button", class: "danger", disabled: true, onclick: () => this.actions.stop() },
      "Stop",
    );
    this.pending = h("ul", { class: "pending", "aria-label": "Not yet delivered" });
    this.hint = h("div", { class: "composer-hint", "aria-live": "polite" });
    this.el = h(
      "form",
      { class: "composer", onsubmit: (e: Event) => e.preventDefault() },
      this.pending,
      this.input,
      h(
        "div",
        { class: "composer-actions" },
        this.hint,
        this.sendBtn,
        h("button", { type: "button", onclick: () => this.submit("followup") }, "Follow up"),
        this.stopBtn,
      ),
    );
  }

  /** Reflects whether the open session has an active run (Stop, and what Send does). */
  setRunning(running: boolean): void {
    this.stopBtn.disabled = !running;
    this.hint.textContent = running ? "Running: Send steers it, Follow up queues." : "";
  }

  setEnabled(enabled: boolean): void {
    this.sendBtn.disabled = !enabled;
  }

  showPending(items: readonly PendingItem[]): void {
    this.pending.replaceChildren(
      ...items.map((p) =>
        h(
          "li",
          { class: `pending-item ${p.kind}` },
          h("span", { class: "pending-kind" }, p.kind === "steer" ? "steering" : "follow-up"),
          h("span", { class: "pending-text" }, p.text),
          h(
            "button",
            {
              type: "button",
              "aria-label": `Cancel ${p.kind}: ${p.text}`,
              onclick: () => this.actions.cancelPending(p.id),
            },
            "×",
          ),
        ),
      ),
    );
  }

  private submit(kind: "send" | "followup"): void {
    const text = this.input.value.trim();
    if (!text || this.sendBtn.disabled) return;
    this.input.value = "";
    if (kind === "send") this.actions.send(text);
    else this.actions.followUp(text);
    this.input.focus();
  }
}
