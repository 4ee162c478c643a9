/**
 * The seam for tool approvals (the approvals issue): an inline card showing the exact command a run wants
 * to execute and the decisions. The gateway has no approval methods or events yet, so nothing creates
 * these cards today; when it does, the app renders one per pending request of the open session (for
 * clients granted `operator.approvals`) and sends the chosen decision back through `decide`.
 */
import { h } from "./dom.js";

/** What the card needs to show; filled from the gateway's approval request once it exists. */
export interface ApprovalRequestView {
  id: string;
  /** The tool asking, e.g. "exec". */
  toolName: string;
  /** The exact command or arguments, shown verbatim. */
  command: string;
  /** Decisions offered, e.g. ["allow-once", "allow-always", "deny"]. */
  decisions: string[];
}

export function approvalCard(req: ApprovalRequestView, decide: (decision: string) => void): HTMLElement {
  const buttons = req.decisions.map((d) =>
    h(
      "button",
      { type: "button", class: d.startsWith("deny") ? "danger" : "primary", onclick: () => decide(d) },
      label(d),
    ),
  );
  return h(
    "section",
    { class: "approval", role: "group", "aria-label": `Approval requested by ${req.toolName}` },
    h("div", { class: "approval-head" }, `${req.toolName} asks to run:`),
    h("pre", { class: "approval-command" }, req.command),
    h("div", { class: "approval-actions" }, ...buttons),
  );
}

function label(decision: string): string {
  const s = decision.replace(/-/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}
