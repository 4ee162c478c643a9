/**
 * An approval card, shown inline in the transcript: the exact command (or the plugin's title) a run wants
 * to execute, where, and the decisions the gateway offers for it. Once decided (here, by another client, or
 * by the timeout) the buttons give way to the outcome.
 */
import { h } from "./dom.js";

/** What the card shows, from an `exec.approval.requested` / `plugin.approval.requested` record. */
export interface ApprovalRequestView {
  id: string;
  kind: "exec" | "plugin";
  /** The tool asking, e.g. "exec". */
  toolName: string;
  /** exec: the exact command, verbatim; plugin: the hook's title. */
  command: string;
  /** exec: the working directory; plugin: the hook's description. */
  detail?: string;
  /** Decisions offered, e.g. ["allow-once", "allow-always", "deny"]. */
  decisions: string[];
}

const OUTCOME: Record<string, string> = {
  "allow-once": "Allowed once",
  "allow-always": "Allowed always",
  deny: "Denied",
};

export function approvalCard(req: ApprovalRequestView, decide: (decision: string) => void): HTMLElement {
  const actions = h("div", { class: "approval-actions" });
  const buttons = req.decisions.map((d) =>
    h(
      "button",
      {
        type: "button",
        class: d === "deny" ? "danger" : "primary",
        onclick: () => {
          for (const b of buttons) b.disabled = true;
          decide(d);
        },
      },
      label(d),
    ),
  );
  actions.append(...buttons);
  return h(
    "section",
    {
      class: "approval",
      role: "group",
      "aria-label": `Approval requested by ${req.toolName}`,
      "data-approval-id": req.id,
    },
    h(
      "div",
      { class: "approval-head" },
      req.kind === "exec" ? `${req.toolName} asks to run:` : `${req.toolName} asks:`,
    ),
    h("pre", { class: "approval-command" }, req.command),
    req.detail
      ? h("div", { class: "approval-detail" }, req.kind === "exec" ? `in ${req.detail}` : req.detail)
      : undefined,
    actions,
  );
}

/** Replaces the card's buttons with the outcome (`cause`: decided, timeout, aborted, unavailable). */
export function showOutcome(card: HTMLElement, decision: string, cause?: string, by?: string): void {
  const actions = card.querySelector(".approval-actions");
  const why = cause === "timeout" ? " (timed out)" : cause === "aborted" ? " (run stopped)" : by ? ` by ${by}` : "";
  actions?.replaceWith(
    h("div", { class: "approval-outcome", role: "status" }, `${OUTCOME[decision] ?? decision}${why}`),
  );
  card.classList.add(decision === "deny" ? "denied" : "allowed");
}

/** The card's buttons back (a decision the gateway refused, e.g. already decided elsewhere, is shown instead). */
export function enableCard(card: HTMLElement): void {
  for (const b of card.querySelectorAll<HTMLButtonElement>(".approval-actions button")) b.disabled = false;
}

function label(decision: string): string {
  const s = decision.replace(/-/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}
