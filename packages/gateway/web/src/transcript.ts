/**
 * The transcript (a `log` region): user messages, and one article per run whose blocks follow the run's
 * events — Markdown text, collapsible thinking, tool cards (arguments, live output, result) and errors in
 * place. Streaming text is re-rendered at most once per animation frame, not once per delta.
 */
import { h, tokens, usd } from "./dom.js";
import { renderMarkdown } from "./markdown.js";
import type { AgentEventPayload, ContentPart, HistoryMessage, RunUsage } from "./types.js";

interface TextBlock {
  kind: "text";
  el: HTMLElement;
  text: string;
}

interface RunView {
  runId: string;
  el: HTMLElement;
  body: HTMLElement;
  current?: TextBlock;
  thinking?: { el: HTMLElement; pre: HTMLElement; text: string };
  tools: Map<string, HTMLElement>;
  ended: boolean;
  /** The run's usage so far: summed from its `usage` events, replaced by the final answer's total. */
  usage?: UsageSum;
  durationMs?: number;
}

/** A run's usage so far, as its line shows it. */
interface UsageSum {
  input: number;
  output: number;
  cacheRead: number;
  costUsd: number;
}

function addUsage(into: UsageSum, u: { input?: number; output?: number; cacheRead?: number; costUsd?: number }): void {
  into.input += Number(u.input ?? 0);
  into.output += Number(u.output ?? 0);
  into.cacheRead += Number(u.cacheRead ?? 0);
  into.costUsd += Number(u.costUsd ?? 0);
}

/** Usage line of a run: tokens, estimated dollars (when the model is priced), duration. */
function usageLine(u: UsageSum, durationMs?: number): HTMLElement {
  const parts = [`${tokens(u.input)} in`, `${tokens(u.output)} out`];
  if (u.cacheRead) parts.push(`${tokens(u.cacheRead)} cached`);
  const cost = usd(u.costUsd);
  if (cost) parts.push(cost);
  if (durationMs !== undefined) parts.push(`${(durationMs / 1000).toFixed(1)} s`);
  return h("div", { class: "usage", "aria-label": "Run usage" }, parts.join(" · "));
}

/** Text of a tool result / partial result ({content:[{type:"text",text}]}), or its JSON. */
export function toolText(value: unknown): string {
  const content = (value as { content?: unknown } | undefined)?.content;
  if (Array.isArray(content)) {
    const parts = content.map((c: { type?: string; text?: string }) =>
      c.type === "text" ? (c.text ?? "") : `[${c.type}]`,
    );
    return parts.join("");
  }
  if (typeof value === "string") return value;
  return value === undefined ? "" : JSON.stringify(value, null, 2);
}

function pretty(args: unknown): string {
  if (typeof args === "string") return args;
  return JSON.stringify(args ?? {}, null, 2);
}

/** How often streaming Markdown is re-rendered. */
const RENDER_INTERVAL_MS = 80;

export class Transcript {
  readonly el: HTMLElement;
  private readonly runs = new Map<string, RunView>();
  private readonly dirty = new Set<TextBlock>();
  private frame = 0;
  /** Tool cards rendered from history, by tool call id, so the tool result that follows fills its card. */
  private readonly historyTools = new Map<string, HTMLElement>();
  /** The "Load older" control at the top, when there are older messages. */
  private control: HTMLElement | undefined;

  constructor() {
    this.el = h("div", { class: "transcript", role: "log", "aria-label": "Transcript", "aria-live": "polite" });
    // One listener for every copy button (code blocks are rendered as HTML strings).
    this.el.addEventListener("click", (e) => {
      const btn = (e.target as HTMLElement).closest("button[data-copy]");
      if (!btn) return;
      const code = btn.closest(".code-block")?.querySelector("code")?.textContent ?? "";
      void navigator.clipboard?.writeText(code).then(
        () => this.flash(btn as HTMLElement, "Copied"),
        () => this.flash(btn as HTMLElement, "Copy failed"),
      );
    });
  }

  clear(): void {
    this.el.replaceChildren();
    this.runs.clear();
    this.dirty.clear();
    this.historyTools.clear();
    this.control = undefined;
  }

  /** Sets (or with undefined removes) the control at the top, e.g. "Load older messages". */
  setControl(node: HTMLElement | undefined): void {
    this.control?.remove();
    this.control = node;
    if (node) this.el.prepend(node);
  }

  /** Renders history messages (chat.history), oldest first, at the end. */
  showHistory(messages: readonly HistoryMessage[]): void {
    this.el.append(this.renderHistory(messages));
    this.scroll();
  }

  /**
   * Renders an older page of history above what is shown, keeping the view where it was (the reader is
   * scrolled near the top and the content grows above).
   */
  prependHistory(messages: readonly HistoryMessage[]): void {
    const before = this.el.scrollHeight;
    const top = this.el.scrollTop;
    const fragment = this.renderHistory(messages);
    const first = this.control ? this.control.nextSibling : this.el.firstChild;
    this.el.insertBefore(fragment, first);
    this.el.scrollTop = top + (this.el.scrollHeight - before);
  }

  private renderHistory(messages: readonly HistoryMessage[]): DocumentFragment {
    const out = document.createDocumentFragment();
    // A run's usage line goes under its last assistant message: the sum of its model calls since the user's message.
    let turn: { last: HTMLElement; usage: UsageSum } | undefined;
    const closeTurn = (): void => {
      if (turn) turn.last.append(usageLine(turn.usage));
      turn = undefined;
    };
    for (const m of messages) {
      if (m.role === "user") {
        closeTurn();
        out.append(userMessage(textOf(m.content)));
      } else if (m.role === "toolResult") this.applyHistoryResult(m, out);
      else {
        const el = this.assistantMessage(m);
        out.append(el);
        const u = m.usage;
        const sum = turn?.usage ?? { input: 0, output: 0, cacheRead: 0, costUsd: 0 };
        if (u) addUsage(sum, u);
        turn = { last: el, usage: sum };
      }
    }
    closeTurn();
    return out;
  }

  /** A tool result from history: shown in its tool card (a page never separates them). */
  private applyHistoryResult(m: HistoryMessage, out: DocumentFragment): void {
    let card = m.toolCallId ? this.historyTools.get(m.toolCallId) : undefined;
    if (!card) {
      card = toolCard(m.toolName ?? "tool", undefined);
      out.append(h("article", { class: "msg assistant" }, h("div", { class: "run-body" }, card)));
    }
    setToolResult(card, m, m.isError === true);
  }

  addUser(text: string, note?: string, into?: string): HTMLElement {
    const el = userMessage(text, note);
    const run = into ? this.runs.get(into) : undefined;
    if (run) {
      run.body.append(el);
      run.current = undefined;
      run.thinking = undefined;
    } else this.el.append(el);
    this.scroll();
    return el;
  }

  addNote(text: string): void {
    this.el.append(h("div", { class: "status-note" }, text));
    this.scroll();
  }

  addError(message: string, runId?: string): void {
    const el = h("div", { class: "error", role: "alert" }, message);
    const run = runId ? this.runs.get(runId) : undefined;
    (run?.body ?? this.el).append(el);
    this.scroll();
  }

  /** The article of a run, created on its first event. */
  run(runId: string): RunView {
    let r = this.runs.get(runId);
    if (!r) {
      const body = h("div", { class: "run-body" });
      const el = h("article", { class: "msg assistant run", "data-run-id": runId, "aria-busy": "true" }, body);
      r = { runId, el, body, tools: new Map(), ended: false };
      this.runs.set(runId, r);
      this.el.append(el);
    }
    return r;
  }

  hasRun(runId: string): boolean {
    return this.runs.has(runId);
  }

  /**
   * Places `node` (an approval card) with the tool call it is about: in its card when shown (live or from
   * history), else in the run, else at the end.
   */
  attachToTool(runId: string, toolCallId: string, node: HTMLElement): void {
    const run = this.runs.get(runId);
    const card = run?.tools.get(toolCallId) ?? this.historyTools.get(toolCallId);
    if (card) {
      card.append(node);
      const status = card.querySelector(".tool-status");
      if (status) status.textContent = "waiting for approval";
    } else (run?.body ?? this.el).append(node);
    node.scrollIntoView?.({ block: "nearest" });
  }

  /** Applies one `agent` event to its run. */
  applyAgent(p: AgentEventPayload): void {
    // A manual compaction (sessions.compact) is no run: its answer is shown by whoever asked for it.
    if (p.stream === "compaction" && !this.runs.has(p.runId)) return;
    const r = this.run(p.runId);
    const d = p.data as Record<string, unknown>;
    switch (p.stream) {
      case "assistant": {
        // Deltas only (the page asks for `tiller.delta-only`): appending keeps a long reply linear.
        if (!r.current) {
          r.current = { kind: "text", el: h("div", { class: "md" }), text: "" };
          r.body.append(r.current.el);
        }
        r.current.text += String(d.delta ?? "");
        this.markDirty(r.current);
        break;
      }
      case "tool":
        this.applyTool(r, d);
        break;
      case "lifecycle":
        if (d.phase === "end" || d.phase === "error") {
          r.ended = true;
          r.el.setAttribute("aria-busy", "false");
          if (d.phase === "error") this.addError(`Run failed: ${String(d.error ?? "error")}`, p.runId);
          else if (d.aborted) r.body.append(h("div", { class: "status-note" }, d.timedOut ? "Timed out." : "Stopped."));
        }
        break;
      case "approval": {
        // Every client sees a tool call wait for a decision in its card (approvers also get the decision card).
        const card = r.tools.get(String(d.toolCallId ?? ""));
        const status = card?.querySelector(".tool-status");
        if (status && d.phase === "requested") status.textContent = "waiting for approval";
        else if (status && d.phase === "resolved") status.textContent = d.decision === "deny" ? "denied" : "running";
        break;
      }
      case "usage":
        // One model call answered: the run's line counts up live (any tab, any client's run).
        r.usage ??= { input: 0, output: 0, cacheRead: 0, costUsd: 0 };
        addUsage(r.usage, d);
        this.renderUsage(r);
        break;
      case "compaction":
        if (d.phase === "end")
          r.body.append(
            h("div", { class: "status-note" }, d.completed ? "Context compacted." : "Compaction did not complete."),
          );
        break;
      default:
        if (p.stream === "thinking") this.applyThinking(r, String(d.delta ?? ""));
    }
    this.scroll();
  }

  /** The run's total from its final answer (authoritative over the live sum), with its duration. */
  setUsage(runId: string, usage: RunUsage | undefined, durationMs?: number): void {
    const r = this.runs.get(runId);
    if (!r || !usage) return;
    r.usage = { input: usage.input, output: usage.output, cacheRead: usage.cacheRead, costUsd: usage.costUsd ?? 0 };
    r.durationMs = durationMs;
    this.renderUsage(r);
  }

  /** The usage line under a live run. */
  private renderUsage(r: RunView): void {
    if (!r.usage) return;
    const line = usageLine(r.usage, r.durationMs);
    const old = r.el.querySelector<HTMLElement>(":scope > .usage");
    if (old) old.replaceWith(line);
    else r.el.append(line);
  }

  private applyThinking(r: RunView, delta: string): void {
    if (!r.thinking) {
      const el = thinkingBlock("");
      const pre = el.querySelector(".thinking-text") as HTMLElement;
      r.thinking = { el, pre, text: "" };
      r.body.append(el);
      r.current = undefined;
    }
    r.thinking.text += delta;
    r.thinking.pre.textContent = r.thinking.text;
  }

  private applyTool(r: RunView, d: Record<string, unknown>): void {
    const id = String(d.toolCallId ?? "");
    let card = r.tools.get(id);
    if (!card) {
      card = toolCard(String(d.name ?? "tool"), d.args);
      r.tools.set(id, card);
      r.body.append(card);
      // Text after a tool belongs to a new block below the card.
      r.current = undefined;
      r.thinking = undefined;
    }
    const out = card.querySelector(".tool-output") as HTMLElement;
    if (d.phase === "update") {
      out.hidden = false;
      out.textContent = toolText(d.partialResult);
    } else if (d.phase === "result") {
      setToolResult(card, d.result, d.isError === true);
    }
  }

  private assistantMessage(m: HistoryMessage): HTMLElement {
    const body = h("div", { class: "run-body" });
    const el = h("article", { class: "msg assistant" }, body);
    const parts: ContentPart[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    for (const p of parts) {
      if (p.type === "text" && p.text) {
        const { thinking, text } = splitThinkTags(p.text);
        if (thinking) body.append(thinkingBlock(thinking));
        if (text) body.append(mdBlock(text));
      } else if (p.type === "thinking" && p.thinking) {
        body.append(thinkingBlock(p.thinking));
      } else if (p.type === "toolCall") {
        const card = toolCard(String(p.name ?? "tool"), p.arguments);
        (card.querySelector(".tool-status") as HTMLElement).textContent = "called";
        card.setAttribute("aria-busy", "false");
        if (p.id) this.historyTools.set(p.id, card);
        body.append(card);
      }
    }
    if (m.stopReason === "error" || m.stopReason === "aborted") {
      body.append(h("div", { class: "status-note" }, m.stopReason === "aborted" ? "Stopped." : "Ended with an error."));
    }
    return el;
  }

  private markDirty(b: TextBlock): void {
    this.dirty.add(b);
    if (this.frame) return;
    // A block is re-rendered at most every RENDER_INTERVAL_MS, however fast the deltas come, so the cost
    // of a reply grows with its streaming time, not with its number of deltas. (A timer, not
    // requestAnimationFrame, which stops in background tabs.)
    this.frame = window.setTimeout(() => {
      this.frame = 0;
      for (const x of this.dirty) x.el.innerHTML = renderMarkdown(x.text);
      this.dirty.clear();
      this.scroll();
    }, RENDER_INTERVAL_MS);
  }

  private flash(btn: HTMLElement, label: string): void {
    btn.textContent = label;
    setTimeout(() => {
      btn.textContent = "Copy";
    }, 1500);
  }

  private scroll(): void {
    const el = this.el;
    el.scrollTop = el.scrollHeight;
  }
}

const THINK_TAG = /<(think|thinking|thought|antthinking)>([\s\S]*?)<\/\1>/gi;

/**
 * History keeps the model's raw text, `<think>` blocks included (the live stream has them removed by the
 * gateway's reply shaping); the page shows them as thinking, not as reply text.
 */
export function splitThinkTags(raw: string): { thinking: string; text: string } {
  const thoughts: string[] = [];
  const text = raw.replace(THINK_TAG, (_m, _tag, inner: string) => {
    thoughts.push(inner.trim());
    return "";
  });
  return { thinking: thoughts.join("\n\n"), text: text.trim() };
}

function thinkingBlock(text: string): HTMLElement {
  return h("details", { class: "thinking" }, h("summary", {}, "Thinking"), h("div", { class: "thinking-text" }, text));
}

function mdBlock(text: string): HTMLElement {
  const el = h("div", { class: "md" });
  el.innerHTML = renderMarkdown(text);
  return el;
}

function userMessage(text: string, note?: string): HTMLElement {
  return h("div", { class: "msg user" }, note ? h("span", { class: "note" }, note) : undefined, h("p", {}, text));
}

/** A tool's result in its card: the output, and the status done / failed. */
function setToolResult(card: HTMLElement, result: unknown, isError: boolean): void {
  const out = card.querySelector(".tool-output") as HTMLElement;
  out.hidden = false;
  out.textContent = toolText(result);
  (card.querySelector(".tool-status") as HTMLElement).textContent = isError ? "failed" : "done";
  card.classList.toggle("failed", isError);
  card.setAttribute("aria-busy", "false");
}

function toolCard(name: string, args: unknown): HTMLElement {
  return h(
    "details",
    { class: "tool-card", open: true, "aria-busy": "true" },
    h("summary", {}, h("span", { class: "tool-name" }, name), " ", h("span", { class: "tool-status" }, "running")),
    h("div", { class: "tool-label" }, "Arguments"),
    h("pre", { class: "tool-args" }, pretty(args)),
    h("pre", { class: "tool-output", hidden: true, "aria-label": `${name} output` }),
  );
}

export function textOf(content: string | ContentPart[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((c) => c.type === "text")
    .map((c) => c.text ?? "")
    .join("");
}
