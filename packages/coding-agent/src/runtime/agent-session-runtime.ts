/**
 * pi's `AgentSessionRuntime`: owns the current AgentSession and replaces it (switch to another session file,
 * start a new one, fork) through one factory, so the services, extensions and wiring stay consistent. The old
 * session is shut down (extensions get `session_shutdown`, its file lock is released) before the new one starts.
 */
import { resolve } from "node:path";
import type { AgentSession } from "../agent-session/agent-session.js";
import type { CreateAgentSessionResult } from "../agent-session/create-agent-session.js";
import type { SessionStartEvent } from "../extensions/types.js";
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

/** Passed to `withSession` callbacks: the session that replaced the old one. */
export interface ReplacedSessionContext {
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
  ) {}

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
    await this.teardown();
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
    await this.rebind?.(next.session);
    await withSession?.({ session: next.session, services: next.services });
    return { cancelled: false };
  }

  private async teardown(): Promise<void> {
    const runner = this.currentServices.resourceLoader.getExtensions();
    runner.runtime.invalidate();
    await runner.runner.emit({ type: "session_shutdown" });
    this.current.dispose();
  }

  /** Continues in the session stored at `sessionPath`. */
  switchSession(
    sessionPath: string,
    options: { cwdOverride?: string; withSession?: (ctx: ReplacedSessionContext) => Promise<void> } = {},
  ): Promise<{ cancelled: boolean }> {
    // Re-opening the current file: its writer lock must be released first.
    if (resolve(sessionPath) === this.current.sessionFile) this.current.dispose();
    const sm = SessionManager.open(sessionPath, options.cwdOverride ? { cwdOverride: options.cwdOverride } : {});
    return this.replace(sm, { type: "session_start", reason: "resume" }, options.withSession);
  }

  /** Starts a new, empty session in the same directory (after `setup` prepared its manager, if given). */
  async newSession(
    options: {
      parentSession?: string;
      setup?: (sessionManager: SessionManager) => Promise<void>;
      withSession?: (ctx: ReplacedSessionContext) => Promise<void>;
    } = {},
  ): Promise<{ cancelled: boolean }> {
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
