/**
 * The page's controller: one gateway connection, the open session (kept per tab across reloads), its
 * transcript fed by history and live `agent` events, and what the composer sends. Each message carries its
 * own queue mode (`queueMode` on `agent`), so the gateway decides what happens while a run is active: Send
 * steers (or uses the session's mode when one is set in the header), Follow up queues a turn of its own.
 * Messages the gateway holds are listed until their run starts or they are answered.
 */
import { ApprovalsView, canApprove } from "./approvals-view.js";
import { Composer, type PendingItem } from "./composer.js";
import { h } from "./dom.js";
import { HistoryPager } from "./history-pager.js";
import { forgetToken, initialCredentials, loginForm, saveCredentials } from "./login.js";
import { SessionHeader } from "./session-header.js";
import { SessionsPanel } from "./sessions-panel.js";
import { GatewaySocket, RequestError } from "./socket.js";
import { Transcript } from "./transcript.js";
import type { AgentEventPayload, AgentFinal, ConnectionState, EventFrame, SessionRow } from "./types.js";

const SESSION_KEY = "tiller.session";
const LIST_REFRESH_MS = 10_000;

interface Pending extends PendingItem {
  sessionKey: string;
}

const STATE_TEXT: Record<ConnectionState, string> = {
  idle: "Not connected",
  connecting: "Connecting…",
  connected: "Connected",
  reconnecting: "Reconnecting…",
  refused: "Not connected",
  unauthorized: "Not authorized",
};

function uuid(): string {
  return crypto.randomUUID();
}

export class App {
  private socket: GatewaySocket | undefined;
  private readonly transcript = new Transcript();
  private readonly composer: Composer;
  private readonly panel: SessionsPanel;
  private readonly header: SessionHeader;
  private readonly history: HistoryPager;
  private readonly approvals: ApprovalsView;
  private readonly status = h("div", { class: "status", role: "status", "aria-label": "Connection" }, "Not connected");
  private readonly main: HTMLElement;
  private readonly shell: HTMLElement;
  private rows: SessionRow[] = [];
  private current = sessionStorage.getItem(SESSION_KEY) ?? "agent:main:main";
  /** Active run per session key, from lifecycle events and sessions.list. */
  private readonly active = new Map<string, string>();
  private pending: Pending[] = [];
  private refreshTimer: ReturnType<typeof setInterval> | undefined;
  /** Runs this tab started (the others on the open session come from another tab or client). */
  private readonly mine = new Set<string>();
  /** Runs whose live view missed events (a seq gap, or joined midway): reloaded from history when they end. */
  private readonly stale = new Set<string>();

  constructor(private readonly root: HTMLElement) {
    this.composer = new Composer({
      send: (t) => this.send(t),
      followUp: (t) => this.followUp(t),
      stop: () => this.stop(),
      cancelPending: (id) => this.cancelPending(id),
    });
    this.panel = new SessionsPanel({
      open: (k) => this.openSession(k),
      create: () => this.createSession(),
      waiting: (k) => this.approvals?.waiting(k) ?? 0,
    });
    this.header = new SessionHeader({
      patch: (f) => this.patch(f),
      reset: () => this.resetSession(),
      compact: () => this.compactSession(),
      remove: () => this.deleteSession(),
    });
    const toggle = h("button", { type: "button", class: "sessions-toggle", "aria-expanded": "false" }, "Sessions");
    toggle.addEventListener("click", () => {
      const open = this.shell.classList.toggle("show-sessions");
      toggle.setAttribute("aria-expanded", String(open));
    });
    this.history = new HistoryPager({
      transcript: this.transcript,
      request: (m, p) => this.req(m, p),
      current: () => this.current,
      resolved: (key) => {
        // The full key (agent:main:x) as the gateway resolved it, so events match.
        this.current = key;
        sessionStorage.setItem(SESSION_KEY, key);
      },
      describe: errText,
    });
    this.approvals = new ApprovalsView({
      transcript: this.transcript,
      request: (m, p) => this.req(m, p),
      current: () => this.current,
      describe: errText,
      onWaitingChange: () => {
        // A session the list does not have yet (a run started elsewhere) is fetched now, not at the next refresh.
        const known = new Set(this.rows.map((r) => r.key));
        if ([...this.approvals.waitingSessions()].some((k) => !known.has(k))) void this.refreshSessions();
        else this.panel.update(this.rows, this.current);
      },
    });
    this.main = h("main", { class: "chat" }, this.header.el, this.transcript.el, this.composer.el);
    this.shell = h(
      "div",
      { class: "shell" },
      h("div", { class: "topbar" }, toggle, h("span", { class: "brand" }, "Tiller"), this.status),
      this.panel.el,
      this.main,
    );
  }

  start(): void {
    const { token, url } = initialCredentials();
    this.connect(token, url);
  }

  private connect(token: string, url: string): void {
    this.socket?.stop();
    const socket = new GatewaySocket(url, token, {
      onState: (s, detail) => this.onState(s, detail, url),
      onOpen: (hello, reconnected) => void this.onOpen(hello, reconnected),
      onEvent: (f) => this.onEvent(f),
      onGap: () => {
        for (const runId of this.active.values()) this.stale.add(runId);
        void this.loadHistory();
      },
    });
    this.socket = socket;
    socket.start();
  }

  private showLogin(url: string, message: string): void {
    this.root.replaceChildren(
      loginForm(url, message, (token, u) => {
        saveCredentials(token, u);
        this.connect(token, u);
      }),
    );
  }

  private onState(state: ConnectionState, detail: string | undefined, url: string): void {
    this.status.textContent = STATE_TEXT[state] + (detail && state === "reconnecting" ? ` (${detail})` : "");
    this.status.dataset.state = state;
    if (state === "refused") this.showLogin(url, detail ?? "Cannot connect.");
    else if (state === "unauthorized") {
      forgetToken();
      this.showLogin(url, `The gateway refused the token: ${detail ?? ""}`);
    } else if (!this.shell.isConnected) this.root.replaceChildren(this.shell);
    this.composer.setEnabled(state === "connected");
  }

  private async onOpen(hello: Record<string, unknown>, reconnected: boolean): Promise<void> {
    const auth = hello.auth as { scopes?: string[] } | undefined;
    this.approvals.setEnabled(canApprove(auth?.scopes ?? []));
    void this.approvals.refreshAll();
    if (!this.refreshTimer) this.refreshTimer = setInterval(() => void this.refreshSessions(), LIST_REFRESH_MS);
    void this.req<{ models?: { ref: string }[] }>("models.list").then(
      (m) => this.header.setModels((m.models ?? []).map((x) => x.ref)),
      () => {},
    );
    await this.refreshSessions();
    if (reconnected) void this.settlePending();
    // After a reconnect the page may have missed events: the transcript is rebuilt from history.
    await this.openSession(this.current, reconnected);
  }

  private req<T>(method: string, params?: unknown): Promise<T> {
    if (!this.socket) return Promise.reject(new Error("not connected"));
    return this.socket.request(method, params) as Promise<T>;
  }

  private async refreshSessions(): Promise<void> {
    try {
      const r = await this.req<{ sessions: SessionRow[] }>("sessions.list", { limit: 200 });
      this.rows = r.sessions;
      for (const row of this.rows) {
        if (row.activeRunId) this.active.set(row.key, row.activeRunId);
        // A run this page just sent may not be listed yet: it is over only once the list names it as the last run.
        else if (!this.mine.has(this.active.get(row.key) ?? "") || ended(row, this.active.get(row.key))) {
          this.active.delete(row.key);
        }
      }
      this.panel.update(this.rows, this.current);
      this.header.show(this.current, this.row(this.current));
      this.composer.setRunning(this.active.has(this.current));
    } catch {
      // Connection lost: the reconnect refreshes.
    }
  }

  private row(key: string): SessionRow | undefined {
    return this.rows.find((r) => r.key === key);
  }

  private async openSession(key: string, force = false): Promise<void> {
    const changed = key !== this.current;
    this.current = key;
    sessionStorage.setItem(SESSION_KEY, key);
    this.shell.classList.remove("show-sessions");
    this.panel.setCurrent(key);
    this.header.show(key, this.row(key));
    this.composer.setRunning(this.active.has(key));
    this.renderPending();
    // (Not "the transcript is empty": an approval announced on connect may already be in it.)
    if (changed || force || this.history.loadedKey !== key) {
      await this.loadHistory();
    }
  }

  /**
   * Rebuilds the transcript from the newest page of chat.history (also subscribes this connection to the
   * session), then shows the session's pending approvals in it.
   */
  private async loadHistory(): Promise<void> {
    if (await this.history.load()) await this.approvals.load();
  }

  private onEvent(f: EventFrame): void {
    if (f.event === "shutdown") {
      this.status.textContent = "Gateway restarting…";
      return;
    }
    if (this.approvals.onEvent(f) || f.event !== "agent") return;
    // The page only follows runs it can place in a session: events without a session key are not its concern.
    const p = f.payload as AgentEventPayload & { sessionKey: string };
    if (typeof p.sessionKey !== "string") return;
    const d = p.data as Record<string, unknown>;
    if (p.stream === "lifecycle") {
      if (d.phase === "start") {
        this.active.set(p.sessionKey, p.runId);
        if (p.sessionKey === this.current && !this.mine.has(p.runId) && !this.pending.some((x) => x.id === p.runId)) {
          this.transcript.addNote("A run started from another tab or client.");
        }
        // A message that waited in the gateway's queue starts its own run now.
        const queued = this.pending.find((x) => x.id === p.runId);
        if (queued) {
          this.pending = this.pending.filter((x) => x !== queued);
          if (p.sessionKey === this.current) this.transcript.addUser(queued.text);
          this.renderPending();
        }
      } else if (d.phase === "end" || d.phase === "error") {
        if (this.active.get(p.sessionKey) === p.runId) this.active.delete(p.sessionKey);
      }
      if (p.sessionKey === this.current) this.composer.setRunning(this.active.has(this.current));
    }
    if (p.sessionKey === this.current) {
      // Joined midway (another tab's run, or after a reload): what streamed before is not on this page.
      if (!this.transcript.hasRun(p.runId) && p.seq > 1 && p.stream !== "compaction") this.stale.add(p.runId);
      this.transcript.applyAgent(p);
      // A tool boundary: the gateway injects steering messages here.
      if (p.stream === "tool" && d.phase === "result") this.deliverSteers(p.sessionKey, p.runId);
    }
    if (p.stream === "lifecycle" && d.phase !== "start") {
      this.deliverSteers(p.sessionKey, p.runId);
      // Another client's run (its message never came as an event), or one whose live view missed events:
      // the transcript is rebuilt from history.
      if (p.sessionKey === this.current && (!this.mine.has(p.runId) || this.stale.has(p.runId)))
        void this.loadHistory();
      this.stale.delete(p.runId);
      void this.refreshSessions();
    }
  }

  /** After a reconnect: messages the gateway answered while the page was away are no longer pending. */
  private async settlePending(): Promise<void> {
    for (const item of [...this.pending]) {
      try {
        const w = await this.req<{ status: string; endedAt?: number }>("agent.wait", { runId: item.id, timeoutMs: 0 });
        if (w.status !== "timeout" || w.endedAt !== undefined) this.unpend(item.id);
      } catch {
        // Still connecting: the next reconnect settles it.
      }
    }
  }

  private unpend(id: string): Pending | undefined {
    const item = this.pending.find((x) => x.id === id);
    if (!item) return undefined;
    this.pending = this.pending.filter((x) => x !== item);
    this.renderPending();
    return item;
  }

  private deliverSteers(sessionKey: string, runId: string): void {
    const steers = this.pending.filter((x) => x.kind === "steer" && x.sessionKey === sessionKey);
    if (steers.length === 0) return;
    this.pending = this.pending.filter((x) => !steers.includes(x));
    if (sessionKey === this.current) for (const s of steers) this.transcript.addUser(s.text, "steered", runId);
    this.renderPending();
  }

  private renderPending(): void {
    this.composer.showPending(this.pending.filter((p) => p.sessionKey === this.current));
  }

  /**
   * Send: starts a run, or while one is active is handed to the gateway with the session's queue mode when
   * the header sets one, else `steer` (joins the run at its next tool boundary).
   */
  private send(text: string): void {
    const sessionKey = this.current;
    const mode = this.row(sessionKey)?.queueMode ?? "steer";
    if (!this.active.has(sessionKey)) {
      const runId = uuid();
      this.transcript.addUser(text);
      this.active.set(sessionKey, runId);
      this.composer.setRunning(true);
      this.startRun(sessionKey, runId, text, mode, false);
      return;
    }
    this.enqueue(sessionKey, text, mode === "steer" ? "steer" : "followup", mode);
  }

  /** Follow up: a turn of its own after the active run (the gateway queues it: queueMode `followup`). */
  private followUp(text: string): void {
    if (!this.active.has(this.current)) {
      this.send(text);
      return;
    }
    this.enqueue(this.current, text, "followup", "followup");
  }

  /** A message sent while a run is active: listed as not yet delivered until it is. */
  private enqueue(sessionKey: string, text: string, kind: Pending["kind"], queueMode: string): void {
    const runId = uuid();
    this.pending.push({ id: runId, kind, text, sessionKey });
    this.renderPending();
    this.startRun(sessionKey, runId, text, queueMode, true);
  }

  private startRun(sessionKey: string, runId: string, message: string, queueMode: string, queued: boolean): void {
    const socket = this.socket;
    if (!socket) return;
    this.mine.add(runId);
    let accepted = false;
    socket
      .request(
        "agent",
        { message, idempotencyKey: runId, sessionKey, queueMode },
        {
          expectFinal: true,
          onAccepted: () => {
            accepted = true;
          },
        },
      )
      .then((payload) => {
        const final = payload as AgentFinal;
        // The request is answered: whatever it was (a run, a command, a message folded into another run or
        // merged with other queued ones, one the queue dropped), it is neither pending nor running any more.
        const wasPending = this.unpend(runId);
        if (this.active.get(sessionKey) === runId) {
          this.active.delete(sessionKey);
          this.composer.setRunning(this.active.has(this.current));
          void this.refreshSessions();
        }
        if (sessionKey !== this.current) return;
        if (wasPending && final.status === "error" && !this.transcript.hasRun(runId)) {
          this.transcript.addError(`Not delivered: ${final.error?.message ?? final.summary ?? "refused"}`);
        }
        const meta = final.result?.meta;
        if (this.transcript.hasRun(runId)) this.transcript.setUsage(runId, meta?.agentMeta?.usage, meta?.durationMs);
        else if (message.trimStart().startsWith("/")) {
          // Commands (/queue, /new…) answer without a run: show their reply. (Anything else without a run of
          // its own was folded into another client's run, whose events show the answer.)
          const text = (final.result?.payloads ?? []).map((x) => x.text ?? "").join("\n\n");
          if (text) this.transcript.showHistory([{ role: "assistant", content: text }]);
        }
        if (final.status === "error" && !this.transcript.hasRun(runId) && !queued) {
          this.transcript.addError(final.error?.message ?? final.summary ?? "the run failed");
        }
      })
      .catch((err: unknown) => {
        // Accepted, then the connection dropped: the run goes on in the gateway, and the reconnect reloads it.
        if (accepted) return;
        if (this.active.get(sessionKey) === runId) this.active.delete(sessionKey);
        this.pending = this.pending.filter((x) => x.id !== runId);
        this.renderPending();
        if (sessionKey === this.current) {
          this.composer.setRunning(this.active.has(sessionKey));
          this.transcript.addError(`Not sent: ${errText(err)}`);
        }
      });
  }

  /** Takes a message out of the gateway's queue (chat.abort with its runId) and off the list. */
  private cancelPending(id: string): void {
    const item = this.unpend(id);
    if (item) void this.req("chat.abort", { sessionKey: item.sessionKey, runId: id }).catch(() => {});
  }

  /** Stop: aborts the active run, and drops the follow-ups this page queued behind it. */
  private stop(): void {
    const key = this.current;
    for (const item of this.pending.filter((x) => x.kind === "followup" && x.sessionKey === key)) {
      this.cancelPending(item.id);
    }
    this.req("chat.abort", { sessionKey: key }).catch((err) =>
      this.transcript.addError(`Stop failed: ${errText(err)}`),
    );
  }

  private async patch(fields: Record<string, string | null>): Promise<void> {
    try {
      await this.req("sessions.patch", { key: this.current, ...fields });
    } catch (err) {
      this.transcript.addError(`Could not change the session: ${errText(err)}`);
    }
    await this.refreshSessions();
  }

  private async createSession(): Promise<void> {
    const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, "");
    const key = `agent:main:web-${stamp}-${uuid().slice(0, 4)}`;
    // Opened at once (synchronously switching the current session), so what is typed next goes there.
    const opened = this.openSession(key);
    this.composer.input.focus();
    try {
      await this.req("sessions.patch", { key });
    } catch (err) {
      this.transcript.addError(`Could not create a session: ${errText(err)}`);
    }
    await opened;
    await this.refreshSessions();
  }

  private async resetSession(): Promise<void> {
    if (!confirm("Reset this session? Its transcript starts over (the old one is kept on disk).")) return;
    await this.runOp("sessions.reset", "reset");
  }

  private async compactSession(): Promise<void> {
    let r: { ok?: boolean; compacted?: boolean; reason?: string };
    try {
      r = await this.req("sessions.compact", { key: this.current });
    } catch (err) {
      this.transcript.addError(`Could not compact: ${errText(err)}`);
      return;
    }
    await this.loadHistory();
    await this.refreshSessions();
    this.transcript.addNote(r.compacted ? "Context compacted." : `Not compacted: ${r.reason ?? "nothing to do"}`);
  }

  private async deleteSession(): Promise<void> {
    if (!confirm("Delete this session?")) return;
    if (await this.runOp("sessions.delete", "delete")) {
      this.current = this.rows.find((r) => r.key !== this.current)?.key ?? "agent:main:main";
      await this.refreshSessions();
      await this.openSession(this.current, true);
    }
  }

  private async runOp(method: string, what: string): Promise<boolean> {
    try {
      const r = await this.req<{ ok?: boolean; reason?: string }>(method, { key: this.current });
      if (r.ok === false) this.transcript.addError(`Could not ${what}: ${r.reason ?? "refused"}`);
    } catch (err) {
      this.transcript.addError(`Could not ${what}: ${errText(err)}`);
      return false;
    }
    await this.refreshSessions();
    if (method !== "sessions.delete") await this.loadHistory();
    return true;
  }
}

/** Whether the list names `runId` as the session's last run, finished. */
function ended(row: SessionRow, runId: string | undefined): boolean {
  const last = row.lastRun;
  return last !== undefined && last.runId === runId && last.status !== "accepted" && last.status !== "running";
}

function errText(err: unknown): string {
  if (err instanceof RequestError) return err.error.message;
  return err instanceof Error ? err.message : String(err);
}
