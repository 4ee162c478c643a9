/**
 * The transcript's history: the newest page of `chat.history` on open (which also subscribes the connection
 * to the session), and older pages above it from the "Load older messages" control — clicked, or scrolled to.
 * A cursor the gateway refuses because the transcript was reset or compacted meanwhile reloads the newest page.
 */
import { h } from "./dom.js";
import { RequestError } from "./socket.js";
import type { Transcript } from "./transcript.js";
import type { HistoryPage } from "./types.js";

const PAGE = 50;

export interface HistoryPagerDeps {
  transcript: Transcript;
  request<T>(method: string, params: unknown): Promise<T>;
  /** The open session's key; `resolved` is the full key the gateway answered with. */
  current(): string;
  resolved(key: string): void;
  describe(err: unknown): string;
}

export class HistoryPager {
  /** The cursor of the oldest page shown, while older ones exist. */
  private cursor: string | undefined;
  private loadingOlder = false;
  private seq = 0;
  /** The session whose history the transcript shows (undefined until one is loaded). */
  loadedKey: string | undefined;
  // Watching the control rather than scroll positions: a transcript being rebuilt passes through scrollTop 0
  // without the reader scrolling.
  private readonly seen: IntersectionObserver;

  constructor(private readonly deps: HistoryPagerDeps) {
    this.seen = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) void this.older();
      },
      { root: deps.transcript.el },
    );
  }

  /** Rebuilds the transcript from the newest page; false when it did not (failed, or superseded). */
  async load(): Promise<boolean> {
    const { transcript } = this.deps;
    const key = this.deps.current();
    const seq = ++this.seq;
    let r: HistoryPage;
    try {
      r = await this.deps.request("chat.history", { sessionKey: key, limit: PAGE });
    } catch (err) {
      if (seq === this.seq) transcript.addError(`Could not load history: ${this.deps.describe(err)}`);
      return false;
    }
    if (seq !== this.seq || key !== this.deps.current()) return false;
    this.deps.resolved(r.sessionKey);
    this.loadedKey = r.sessionKey;
    transcript.clear();
    transcript.showHistory(r.messages);
    this.setControl(r);
    return true;
  }

  /** Prepends the page before the oldest shown. */
  async older(): Promise<void> {
    const before = this.cursor;
    if (!before || this.loadingOlder) return;
    this.loadingOlder = true;
    const seq = this.seq;
    try {
      const r = await this.deps.request<HistoryPage>("chat.history", {
        sessionKey: this.deps.current(),
        limit: PAGE,
        before,
      });
      if (seq !== this.seq) return;
      this.deps.transcript.prependHistory(r.messages);
      this.setControl(r);
    } catch (err) {
      if (err instanceof RequestError && err.error.details?.reason === "history-changed") void this.load();
      else this.deps.transcript.addError(`Could not load older messages: ${this.deps.describe(err)}`);
    } finally {
      this.loadingOlder = false;
    }
  }

  private setControl(r: HistoryPage): void {
    this.cursor = r.hasMore ? r.cursor : undefined;
    this.seen.disconnect();
    const control = this.cursor
      ? h("button", { type: "button", class: "load-earlier", onclick: () => void this.older() }, "Load older messages")
      : undefined;
    this.deps.transcript.setControl(control);
    if (control) this.seen.observe(control);
  }
}
