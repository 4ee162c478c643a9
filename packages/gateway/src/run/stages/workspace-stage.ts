/**
 * Stage "workspace and sandbox": the agent's workspace (created on first use) and, with sandboxing on, the
 * sandbox the run's tools are confined to. Sets `ctx.workspace`, and `ctx.workspaceDir` to where the tools work.
 */
import {
  ensureWorkspace,
  readSandboxSettings,
  resolveAgentWorkspaceDir,
  resolveSandboxContext,
  type SandboxContext,
} from "../../workspace.js";
import type { RunContext } from "../run-types.js";

export interface RunWorkspace {
  /** The agent's own workspace (workspace files, skills). */
  agentWorkspaceDir: string;
  /** Where the run's tools work: the workspace, or the sandbox. */
  sandbox: SandboxContext;
}

export function resolveRunWorkspace(ctx: RunContext): RunWorkspace {
  const cfg = ctx.config;
  const agent = cfg.agents.list.find((a) => a.id === ctx.agentId);
  const agentWorkspaceDir = resolveAgentWorkspaceDir({
    home: cfg.home,
    agentId: ctx.agentId,
    defaultAgentId: cfg.agents.defaultId,
    defaultWorkspace: cfg.agents.defaults.workspace,
    agentWorkspace: agent?.workspace,
  });
  ensureWorkspace(agentWorkspaceDir);
  const sandbox = resolveSandboxContext({
    home: cfg.home,
    agentId: ctx.agentId,
    sessionKey: ctx.sessionKey,
    mainSessionKey: `agent:${ctx.agentId}:main`,
    agentWorkspaceDir,
    sandbox: readSandboxSettings(cfg.raw),
  });
  ctx.workspaceDir = sandbox.workspaceDir;
  ctx.workspace = { agentWorkspaceDir, sandbox };
  return ctx.workspace;
}
