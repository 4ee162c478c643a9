/**
 * pi's `AgentSessionRuntime`: owns the current AgentSession and replaces it (switch to another session file,
 * start a new one, fork) through one factory, so the services, extensions and wiring stay consistent. The old
 * session is shut down (extensions get `session_shutdown`, its file lock is released) before the new one starts.
 */
import { resolve } from "node:path";
import type { AgentSession, ReplacedSessionCommandContext } from "../agent-session/agent-session.js";
import type { CreateAgentSessionResult } from "../agent-session/create-agent-session.js";
import { sessionCommandActions } from "../extensions/context.js";
import { extensionRunnerOf } from "../extensions/runner.js";
import type { ExtensionEventMap, SessionStartEvent } from "../extensions/types.js";
import { SessionManager } from "../session/session-manager.js";
import type { AgentSessionRuntimeDiagnostic, AgentSessionServices } from "./agent-session-services.js";

export interface CreateAgentSessionRuntimeResult extends CreateAgentSessionResult {
  services: AgentSessionServices;
  diagnostics: AgentSessionRuntimeDiagnostic[];
}

export type CreateAgentSessionRuntimeFactory = (options: {
  cwd: string;
  agentDir: string;
  sessionManager: SessionManager;
  sessionStartEvent?: SessionStartEvent;
}) => Promise<CreateAgentSessionRuntimeResult>;

/**
 * Passed to `withSession` callbacks: pi's replaced-session context (the new session's command context, which can
 * send into it), plus the session that replaced the old one and its services.
 */
export interface ReplacedSessionContext extends ReplacedSessionCommandContext {
  session: AgentSession;
  services: AgentSessionServices;
}

/** Thrown by `importFromJsonl` for a file that does not exist. */
export class SessionImportFileNotFoundError extends Error {
  constructor(readonly filePath: string) {
    super(`Session file not found: ${filePath}`);
    this.name = "SessionImportFileNotFoundError";
  }
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b: { type?: string; text?: string }) => (b.type === "text" ? (b.text ?? "") : "")).join("");
}

export class AgentSessionRuntime {
  private rebind: ((session: AgentSession) => Promise<void>) | undefined;
  private beforeInvalidate: (() => void) | undefined;
  private disposed = false;

  constructor(
    private current: AgentSession,
    private currentServices: AgentSessionServices,
    private readonly createRuntime: CreateAgentSessionRuntimeFactory,
    private currentDiagnostics: AgentSessionRuntimeDiagnostic[] = [],
    private fallbackMessage?: string,
  ) {
    this.bindCommands();
  }

  /**
   * Gives the current session's `/command` handlers the runtime's session controls: `newSession`, `fork` and
   * `switchSession` replace the session through this runtime (their `withSession` gets the new session's command
   * context); waiting and tree moves act on the session itself.
   */
  private bindCommands(): void {
    const runner = this.current.extensionRunner;
    runner.bindCommandContext({
      ...sessionCommandActions(this.current),
      newSession: (o) =>
        this.newSession({
          ...(o?.parentSession ? { parentSession: o.parentSession } : {}),
          ...(o?.setup ? { setup: o.setup } : {}),
          ...(o?.withSession ? { withSession: (r) => o.withSession!(r) } : {}),
        }),
      fork: (entryId, o) =>
        this.fork(entryId, {
          ...(o?.position ? { position: o.position } : {}),
          ...(o?.withSession ? { withSession: (r) => o.withSession!(r) } : {}),
        }),
      switchSession: (path, o) =>
        this.switchSession(path, o?.withSession ? { withSession: (r) => o.withSession!(r) } : {}),
    });
  }

  /** Asks the current session's extensions (`session_before_switch` / `session_before_fork`); true when one cancels. */
  private async cancelledBy(
    event: ExtensionEventMap["session_before_switch"] | ExtensionEventMap["session_before_fork"],
  ): Promise<boolean> {
    const runner = this.current.extensionRunner;
    if (!runner.hasHandlers(event.type)) return false;
    const r = await runner.emit(event);
    return r?.cancel === true;
  }

  get services(): AgentSessionServices {
    return this.currentServices;
  }
  get session(): AgentSession {
    return this.current;
  }
  get cwd(): string {
    return this.currentServices.cwd;
  }
  get diagnostics(): readonly AgentSessionRuntimeDiagnostic[] {
    return this.currentDiagnostics;
  }
  get modelFallbackMessage(): string | undefined {
    return this.fallbackMessage;
  }
  /** Called with each replacement session (UIs re-subscribe there). */
  setRebindSession(rebindSession?: (session: AgentSession) => Promise<void>): void {
    this.rebind = rebindSession;
  }
  /** Called just before the current session is shut down for a replacement. */
  setBeforeSessionInvalidate(beforeSessionInvalidate?: () => void): void {
    this.beforeInvalidate = beforeSessionInvalidate;
  }

  private async replace(
    sessionManager: SessionManager,
    sessionStartEvent: SessionStartEvent,
    withSession?: (ctx: ReplacedSessionContext) => Promise<void>,
  ): Promise<{ cancelled: boolean }> {
    if (this.disposed) throw new Error("AgentSessionRuntime was disposed");
    if (this.current.isStreaming) await this.current.abort();
    this.beforeInvalidate?.();
    const target = sessionManager.getSessionFile();
    await this.teardown(sessionStartEvent.reason === "startup" ? "quit" : sessionStartEvent.reason, target);
    const next = await this.createRuntime({
      cwd: sessionManager.getCwd(),
      agentDir: this.currentServices.agentDir,
      sessionManager,
      sessionStartEvent,
    });
    this.current = next.session;
    this.currentServices = next.services;
    this.currentDiagnostics = next.diagnostics;
    this.fallbackMessage = next.modelFallbackMessage;
    this.bindCommands();
    await this.rebind?.(next.session);
    if (withSession) {
      const context = next.session.createReplacedSessionContext();
      await withSession(Object.assign(context, { session: next.session, services: next.services }));
    }
    return { cancelled: false };
  }

  private async teardown(
    reason: ExtensionEventMap["session_shutdown"]["reason"] = "quit",
    targetSessionFile?: string,
  ): Promise<void> {
    const loaded = this.currentServices.resourceLoader.getExtensions();
    loaded.runtime.invalidate();
    await extensionRunnerOf(loaded).emit({
      type: "session_shutdown",
      reason,
      ...(targetSessionFile ? { targetSessionFile } : {}),
    });
    this.current.dispose();
  }

  /** Continues in the session stored at `sessionPath` (unless an extension cancels `session_before_switch`). */
  async switchSession(
    sessionPath: string,
    options: { cwdOverride?: string; withSession?: (ctx: ReplacedSessionContext) => Promise<void> } = {},
  ): Promise<{ cancelled: boolean }> {
    const targetSessionFile = resolve(sessionPath);
    if (await this.cancelledBy({ type: "session_before_switch", reason: "resume", targetSessionFile }))
      return { cancelled: true };
    // Re-opening the current file: its writer lock must be released first.
    if (resolve(sessionPath) === this.current.sessionFile) this.current.dispose();
    const sm = SessionManager.open(sessionPath, options.cwdOverride ? { cwdOverride: options.cwdOverride } : {});
    return this.replace(sm, { type: "session_start", reason: "resume" }, options.withSession);
  }

  /**
   * Starts a new, empty session in the same directory (after `setup` prepared its manager, if given), unless an
   * extension cancels `session_before_switch`.
   */
  async newSession(
    options: {
      parentSession?: string;
      setup?: (sessionManager: SessionManager) => Promise<void>;
      withSession?: (ctx: ReplacedSessionContext) => Promise<void>;
    } = {},
  ): Promise<{ cancelled: boolean }> {
    if (await this.cancelledBy({ type: "session_before_switch", reason: "new" })) return { cancelled: true };
    const old = this.current.sessionManager;
    const dir = old.getSessionDir();
    const sm = old.isPersisted() ? SessionManager.create(old.getCwd(), dir) : SessionManager.inMemory(old.getCwd());
    if (options.parentSession) sm.newSession({ parentSession: options.parentSession });
    await options.setup?.(sm);
    return this.replace(sm, { type: "session_start", reason: "new" }, options.withSession);
  }

  /**
   * Forks the current branch at `entryId` into a new session. `position: "before"` (pi's default for user
   * messages) forks at the entry's parent and returns the entry's text for editing.
   */
  async fork(
    entryId: string,
    options: { position?: "before" | "at"; withSession?: (ctx: ReplacedSessionContext) => Promise<void> } = {},
  ): Promise<{ cancelled: boolean; selectedText?: string }> {
    const sm = this.current.sessionManager;
    const entry = sm.getEntry(entryId);
    if (!entry) throw new Error(`Entry ${entryId} not found`);
    const isUser = entry.type === "message" && entry.message.role === "user";
    const position = options.position ?? (isUser ? "before" : "at");
    const selectedText = isUser ? textOf((entry.message as { content?: unknown }).content) : undefined;
    if (await this.cancelledBy({ type: "session_before_fork", entryId, position })) return { cancelled: true };
    const at = position === "before" ? entry.parentId : entry.id;
    const source = sm.getSessionFile();
    this.current.dispose();
    const fork = source ? SessionManager.open(source) : undefined;
    if (fork && at) fork.createBranchedSession(at);
    else if (fork) fork.newSession({ parentSession: source as string });
    const target = fork ?? SessionManager.inMemory(sm.getCwd());
    const result = await this.replace(target, { type: "session_start", reason: "fork" }, options.withSession);
    return selectedText !== undefined ? { ...result, selectedText } : result;
  }

  /** Copies a session file into this directory (new id, `parentSession` set) and continues there. */
  async importFromJsonl(inputPath: string, cwdOverride?: string): Promise<{ cancelled: boolean }> {
    const { existsSync } = await import("node:fs");
    if (!existsSync(inputPath)) throw new SessionImportFileNotFoundError(inputPath);
    const dir = this.current.sessionManager.getSessionDir();
    const sm = SessionManager.forkFrom(inputPath, cwdOverride ?? this.cwd, dir || undefined);
    return this.replace(sm, { type: "session_start", reason: "resume" });
  }

  /** Shuts the current session down; the runtime cannot be used afterwards. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.teardown();
  }
}

/** Creates the first session through `createRuntime` and the runtime that will replace it. */
export async function createAgentSessionRuntime(
  createRuntime: CreateAgentSessionRuntimeFactory,
  options: { cwd: string; agentDir: string; sessionManager: SessionManager; sessionStartEvent?: SessionStartEvent },
): Promise<AgentSessionRuntime> {
  const first = await createRuntime(options);
  return new AgentSessionRuntime(
    first.session,
    first.services,
    createRuntime,
    first.diagnostics,
    first.modelFallbackMessage,
  );
}
