/**
 * Agent workspaces. Each agent has a workspace folder (its tools' working directory and the home of its bootstrap
 * files and skills), created on first use. A sandboxed run is redirected to a sandbox workspace root under
 * `$TILLER_HOME/sandboxes/`, unless the sandbox mounts the agent workspace (`workspaceAccess: "ro" | "rw"`).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

/** When runs are sandboxed: never, for every session but the agent's main one, or always. */
export type SandboxMode = "off" | "non-main" | "all";
/** What a sandboxed run sees of the agent workspace: nothing (own root), read-only, or read-write. */
export type SandboxWorkspaceAccess = "none" | "ro" | "rw";
/** One sandbox per agent, per session, or one shared by all. */
export type SandboxScope = "agent" | "session" | "shared";

export interface SandboxSettings {
  mode: SandboxMode;
  scope: SandboxScope;
  workspaceAccess: SandboxWorkspaceAccess;
}

export const DEFAULT_SANDBOX: SandboxSettings = { mode: "off", scope: "agent", workspaceAccess: "none" };

/** The resolved sandbox of one run. */
export interface SandboxContext {
  enabled: boolean;
  /** Where the run's tools work: the sandbox root, or the agent workspace when it is mounted. */
  workspaceDir: string;
  /** The agent's own workspace (bootstrap files still come from here). */
  agentWorkspaceDir: string;
  workspaceAccess: SandboxWorkspaceAccess;
  /** True when write tools must be disabled (read-only mount). */
  readOnly: boolean;
}

export interface ResolveWorkspaceOptions {
  /** $TILLER_HOME. */
  home: string;
  agentId: string;
  /** The default agent's id (its workspace is `defaultWorkspace`). */
  defaultAgentId?: string;
  /** `agents.defaults.workspace` (default `$home/workspace`). */
  defaultWorkspace?: string;
  /** `agents.list[].workspace` of this agent. */
  agentWorkspace?: string;
}

/**
 * The agent's workspace folder: its own `workspace` setting, else the default workspace for the default agent,
 * else `$home/workspace-<agentId>`.
 */
export function resolveAgentWorkspaceDir(options: ResolveWorkspaceOptions): string {
  if (options.agentWorkspace) return resolve(options.home, options.agentWorkspace);
  const defaultWs = resolve(options.home, options.defaultWorkspace ?? "workspace");
  if (options.agentId === (options.defaultAgentId ?? "main")) return defaultWs;
  return join(options.home, `workspace-${safeSegment(options.agentId)}`);
}

/** Creates the workspace when missing. `created` tells a brand-new workspace (BOOTSTRAP.md is injected then). */
export function ensureWorkspace(dir: string): { dir: string; created: boolean } {
  if (existsSync(dir)) return { dir, created: false };
  mkdirSync(dir, { recursive: true });
  return { dir, created: true };
}

/** A file-name-safe segment of a key (session keys contain ':'). */
export function safeSegment(key: string): string {
  const s = key.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^\.+/, "_");
  return s.slice(0, 120) || "_";
}

export interface ResolveSandboxOptions {
  home: string;
  agentId: string;
  sessionKey: string;
  /** The agent's main session key (`agent:<id>:main`); `non-main` sandboxes every other session. */
  mainSessionKey?: string;
  agentWorkspaceDir: string;
  sandbox?: Partial<SandboxSettings>;
}

/** Decides whether this run is sandboxed and where its tools work. The sandbox root is created on first use. */
export function resolveSandboxContext(options: ResolveSandboxOptions): SandboxContext {
  const settings = { ...DEFAULT_SANDBOX, ...(options.sandbox ?? {}) };
  const mainKey = options.mainSessionKey ?? `agent:${options.agentId}:main`;
  const enabled = settings.mode === "all" || (settings.mode === "non-main" && options.sessionKey !== mainKey);
  if (!enabled) {
    return {
      enabled: false,
      workspaceDir: options.agentWorkspaceDir,
      agentWorkspaceDir: options.agentWorkspaceDir,
      workspaceAccess: "rw",
      readOnly: false,
    };
  }
  if (settings.workspaceAccess !== "none") {
    return {
      enabled: true,
      workspaceDir: options.agentWorkspaceDir,
      agentWorkspaceDir: options.agentWorkspaceDir,
      workspaceAccess: settings.workspaceAccess,
      readOnly: settings.workspaceAccess === "ro",
    };
  }
  const scopeKey =
    settings.scope === "shared"
      ? "shared"
      : settings.scope === "session"
        ? `${safeSegment(options.agentId)}-${safeSegment(options.sessionKey)}`
        : safeSegment(options.agentId);
  const root = join(options.home, "sandboxes", scopeKey);
  mkdirSync(root, { recursive: true });
  return {
    enabled: true,
    workspaceDir: root,
    agentWorkspaceDir: options.agentWorkspaceDir,
    workspaceAccess: "none",
    readOnly: false,
  };
}

/** Reads `agents.defaults.sandbox` from the raw tiller.json object; unknown values fall back to the defaults. */
export function readSandboxSettings(raw: Record<string, unknown> | undefined): SandboxSettings {
  const agents = raw?.agents as Record<string, unknown> | undefined;
  const defaults = agents?.defaults as Record<string, unknown> | undefined;
  const sb = (defaults?.sandbox ?? {}) as Record<string, unknown>;
  const pick = <T extends string>(v: unknown, allowed: readonly T[], def: T): T =>
    typeof v === "string" && (allowed as readonly string[]).includes(v) ? (v as T) : def;
  return {
    mode: pick(sb.mode, ["off", "non-main", "all"], DEFAULT_SANDBOX.mode),
    scope: pick(sb.scope, ["agent", "session", "shared"], DEFAULT_SANDBOX.scope),
    workspaceAccess: pick(sb.workspaceAccess, ["none", "ro", "rw"], DEFAULT_SANDBOX.workspaceAccess),
  };
}
