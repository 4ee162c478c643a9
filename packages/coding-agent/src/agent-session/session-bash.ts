/**
 * The session's user commands (pi's `!cmd`, `AgentSession.executeBash`): which one runs, and the results that
 * finished while the agent ran, held until the next prompt so they join the transcript in pi's order.
 */
import type { ExtensionRunner } from "../extensions/runner.js";
import type { BashExecutionMessage } from "../session/messages.js";
import type { SessionManager } from "../session/session-manager.js";
import type { SettingsManager } from "../settings/settings-manager.js";
import { type BashOperations, createLocalBashOperations } from "../tools/bash.js";
import { type BashResult, runUserBash } from "./user-bash.js";

/** What the commands need from their session. */
export interface SessionBashHost {
  readonly sessionManager: SessionManager;
  readonly settingsManager: SettingsManager;
  /** The session's extension runner (it can change when extensions are rebound). */
  runner(): ExtensionRunner;
  /** Whether the agent runs now: a result is then held for the next prompt. */
  isStreaming(): boolean;
  /** Appends a message to the transcript (and the agent's context). */
  append(message: BashExecutionMessage): void;
}

export class SessionBash {
  private abort: AbortController | undefined;
  /** Commands finished while the agent ran: they join the transcript before the next prompt. */
  private pending: BashExecutionMessage[] = [];

  constructor(private readonly host: SessionBashHost) {}

  /** See `AgentSession.executeBash`. */
  async execute(
    command: string,
    onChunk?: (chunk: string) => void,
    options: { excludeFromContext?: boolean; operations?: BashOperations } = {},
  ): Promise<BashResult> {
    const { host } = this;
    const runner = host.runner();
    // Extensions may answer the command themselves or run it elsewhere (pi's user_bash).
    const answer = runner.hasHandlers("user_bash")
      ? await runner.emitUserBash({
          type: "user_bash",
          command,
          excludeFromContext: options.excludeFromContext === true,
          cwd: host.sessionManager.getCwd(),
        })
      : undefined;
    if (answer?.result) {
      this.record(command, answer.result, options);
      return answer.result;
    }
    const abort = new AbortController();
    this.abort = abort;
    const prefix = host.settingsManager.getShellCommandPrefix();
    const shellPath = host.settingsManager.getShellPath();
    const operations =
      options.operations ?? answer?.operations ?? createLocalBashOperations(shellPath ? { shellPath } : {});
    try {
      const result = await runUserBash(
        prefix ? `${prefix}\n${command}` : command,
        host.sessionManager.getCwd(),
        operations,
        {
          ...(onChunk ? { onChunk } : {}),
          signal: abort.signal,
        },
      );
      this.record(command, result, options);
      return result;
    } finally {
      if (this.abort === abort) this.abort = undefined;
    }
  }

  /** Records a command's result as a `bashExecution` message: now when idle, before the next prompt otherwise. */
  record(command: string, result: BashResult, options: { excludeFromContext?: boolean } = {}): void {
    const message: BashExecutionMessage = {
      role: "bashExecution",
      command,
      output: result.output,
      exitCode: result.exitCode,
      cancelled: result.cancelled,
      truncated: result.truncated,
      ...(result.fullOutputPath ? { fullOutputPath: result.fullOutputPath } : {}),
      timestamp: Date.now(),
      ...(options.excludeFromContext ? { excludeFromContext: true } : {}),
    };
    if (this.host.isStreaming()) this.pending.push(message);
    else this.host.append(message);
  }

  /** Kills the running command; its result comes back `cancelled`. */
  kill(): void {
    this.abort?.abort();
  }

  get running(): boolean {
    return this.abort !== undefined;
  }

  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /** Appends the held results (before a prompt). */
  flush(): void {
    const pending = this.pending;
    this.pending = [];
    for (const m of pending) this.host.append(m);
  }

  /** Forgets the held results (the session switched files). */
  discard(): void {
    this.pending = [];
  }
}
