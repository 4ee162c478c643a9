/**
 * Exec approvals: the policy of `$TILLER_HOME/exec-approvals.json` applied to one command. `evaluate` answers
 * what the agent's approval mechanism expects of a tool rule — run (`false`), ask (an `ApprovalRequest`), or block
 * — and `allowAlways` adds executables to the allowlist, rewriting the file atomically with mode 0600.
 *
 * | security  | ask     | allowlist match | result                      |
 * | --------- | ------- | --------------- | --------------------------- |
 * | deny      | any     | –               | block                       |
 * | allowlist | off     | yes / no        | run / block                 |
 * | allowlist | on-miss | yes / no        | run / ask                   |
 * | full      | off     | –               | run                         |
 * | full      | on-miss | –               | run (full needs no match)   |
 * | any other | always  | –               | ask                         |
 *
 * Asking when nobody can be asked (print mode), or a request timing out, is decided by `askFallback`: `deny`
 * blocks, `allowlist` runs only a matching command, `full` runs it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentEvent, ApprovalRequirement } from "@tiller/agent";
import { getTillerHome } from "../home.js";
import { allowlistMisses, analyzeCommand, patternsToPersist } from "./allowlist.js";
import {
  type ExecApprovalsFile,
  type ExecAskFallback,
  type ExecPolicy,
  policyOf,
  validateExecApprovalsFile,
} from "./schema.js";

export const EXEC_APPROVALS_FILE = "exec-approvals.json";

/** `$TILLER_HOME/exec-approvals.json`. */
export function execApprovalsPath(home: string = getTillerHome()): string {
  return join(home, EXEC_APPROVALS_FILE);
}

/** The file is unreadable or invalid; the message names the file and each offending key. */
export class ExecApprovalsError extends Error {}

/** `meta` of an exec approval request, read back from `tool_approval_end` to persist `allow-always`. */
export interface ExecApprovalMeta {
  kind: "exec";
  command: string;
  cwd: string;
  /** Allowlist patterns an `allow-always` adds; absent when the command cannot be pinned to executables. */
  persist?: string[];
}

export interface EvaluateOptions {
  /** Whether someone can answer a request (TUI, rpc client). False: `askFallback` decides at once. */
  canAsk: boolean;
  /** PATH used to resolve bare executables (default: this process's). */
  PATH?: string;
}

function readFile(path: string): ExecApprovalsFile | undefined {
  if (!existsSync(path)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ExecApprovalsError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const problems = validateExecApprovalsFile(raw);
  if (problems.length > 0) throw new ExecApprovalsError(`${path}: ${problems.join("; ")}`);
  return raw as ExecApprovalsFile;
}

function fallbackAllows(fallback: ExecAskFallback, matched: boolean): boolean {
  return fallback === "full" || (fallback === "allowlist" && matched);
}

export class ExecApprovals {
  readonly path: string;
  policy: ExecPolicy;
  /** Problems worth a warning that do not stop anything (e.g. a file others can read). */
  readonly warnings: string[] = [];
  readonly #home: string;

  private constructor(path: string, file: ExecApprovalsFile | undefined, home: string) {
    this.path = path;
    this.policy = policyOf(file ?? {});
    this.#home = home;
  }

  /** Reads the file (absent: commands run without asking). Throws `ExecApprovalsError` for a bad file. */
  static load(path: string = execApprovalsPath(), options: { home?: string } = {}): ExecApprovals {
    const approvals = new ExecApprovals(path, readFile(path), options.home ?? homedir());
    if (existsSync(path) && (statSync(path).mode & 0o077) !== 0) {
      approvals.warnings.push(`${path} is readable by other users; run: chmod 600 ${path}`);
    }
    return approvals;
  }

  /** What one command needs: `false` (run), an approval request, or a block with the reason. */
  evaluate(command: string, cwd: string, options: EvaluateOptions): ApprovalRequirement {
    const { security, ask, askFallback, allowlist } = this.policy;
    if (security === "deny") {
      return { block: true, reason: `Command not run: exec is denied by ${this.path} (security: deny).` };
    }
    if (security === "full" && ask !== "always") return false; // no allowlist to consult, nothing to ask
    const analysis = analyzeCommand(command, cwd, {
      home: this.#home,
      ...(options.PATH ? { PATH: options.PATH } : {}),
    });
    const misses = allowlistMisses(analysis, allowlist, this.#home);
    const matched = analysis.ok && misses.length === 0;
    const missText = analysis.ok
      ? `not on the allowlist: ${misses.map((m) => m.path ?? m.word).join(", ")}`
      : `cannot be checked against the allowlist (${analysis.reason})`;
    const needsAsk = ask === "always" || (ask === "on-miss" && security === "allowlist" && !matched);
    if (!needsAsk) {
      if (security === "allowlist" && !matched) {
        return { block: true, reason: `Command not run: ${missText} (${this.path}, ask: off).` };
      }
      return false;
    }
    if (!options.canAsk) {
      if (fallbackAllows(askFallback, matched)) return false;
      return {
        block: true,
        reason: `Command not run: it needs approval (${ask === "always" ? "ask: always" : missText}) and nobody can be asked here (askFallback: ${askFallback}).`,
      };
    }
    const persist = analysis.ok ? patternsToPersist(analysis.executables) : undefined;
    const meta: ExecApprovalMeta = { kind: "exec", command, cwd, ...(persist ? { persist } : {}) };
    return {
      title: "Run this command?",
      description: command,
      severity: "warning",
      ...(this.policy.timeoutMs !== undefined
        ? {
            timeoutMs: this.policy.timeoutMs,
            timeoutBehavior: fallbackAllows(askFallback, matched) ? ("allow" as const) : ("deny" as const),
          }
        : {}),
      // allow-always is recorded in the allowlist, not in the agent's memory.
      alwaysKey: false,
      meta: meta as unknown as Record<string, unknown>,
    };
  }

  /**
   * Adds patterns to the allowlist (marked `source: "allow-always"`), re-reading the file first so edits made
   * meanwhile are kept, and writing it atomically with mode 0600. Returns the patterns that were new.
   */
  allowAlways(patterns: readonly string[]): string[] {
    const current = readFile(this.path) ?? { version: 1 as const };
    const list = (current.allowlist ?? []).slice();
    const added: string[] = [];
    for (const pattern of patterns) {
      if (list.some((e) => e.pattern === pattern)) continue;
      list.push({ pattern, source: "allow-always", addedAt: Date.now() });
      added.push(pattern);
    }
    const next: ExecApprovalsFile = { ...current, allowlist: list };
    if (added.length > 0) {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      const tmp = `${this.path}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.path);
    }
    this.policy = policyOf(next);
    return added;
  }

  /** Persists an exec `allow-always` from its `tool_approval_end` event; other events are ignored. */
  onAgentEvent(event: AgentEvent): string[] {
    if (event.type !== "tool_approval_end" || event.resolution.decision !== "allow-always") return [];
    const meta = event.approval.request.meta as Partial<ExecApprovalMeta> | undefined;
    if (meta?.kind !== "exec" || !Array.isArray(meta.persist)) return [];
    return this.allowAlways(meta.persist);
  }
}
