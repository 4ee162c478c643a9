import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ensureWorkspace,
  readSandboxSettings,
  resolveAgentWorkspaceDir,
  resolveSandboxContext,
} from "../src/workspace.js";

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-ws-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe("agent workspaces", () => {
  it("the default agent uses the default workspace, others get their own, explicit settings win", () => {
    expect(resolveAgentWorkspaceDir({ home, agentId: "main" })).toBe(join(home, "workspace"));
    expect(resolveAgentWorkspaceDir({ home, agentId: "ops" })).toBe(join(home, "workspace-ops"));
    expect(resolveAgentWorkspaceDir({ home, agentId: "ops", agentWorkspace: "/srv/ops" })).toBe("/srv/ops");
    expect(resolveAgentWorkspaceDir({ home, agentId: "main", defaultWorkspace: "ws" })).toBe(join(home, "ws"));
  });

  it("is created on first use only", () => {
    const dir = join(home, "workspace-new");
    expect(ensureWorkspace(dir)).toEqual({ dir, created: true });
    expect(existsSync(dir)).toBe(true);
    expect(ensureWorkspace(dir).created).toBe(false);
  });
});

describe("sandbox", () => {
  const ws = "/agents/main-ws";

  it("mode off: runs use the agent workspace", () => {
    const sb = resolveSandboxContext({ home, agentId: "main", sessionKey: "agent:main:x", agentWorkspaceDir: ws });
    expect(sb).toMatchObject({ enabled: false, workspaceDir: ws, readOnly: false });
  });

  it("non-main: the main session is not sandboxed, any other session is redirected to the sandbox root", () => {
    const sandbox = { mode: "non-main" as const };
    const main = resolveSandboxContext({
      home,
      agentId: "main",
      sessionKey: "agent:main:main",
      agentWorkspaceDir: ws,
      sandbox,
    });
    expect(main.enabled).toBe(false);
    const group = resolveSandboxContext({
      home,
      agentId: "main",
      sessionKey: "agent:main:telegram:group:42",
      agentWorkspaceDir: ws,
      sandbox,
    });
    expect(group).toMatchObject({
      enabled: true,
      workspaceDir: join(home, "sandboxes", "main"),
      agentWorkspaceDir: ws,
    });
    expect(existsSync(group.workspaceDir)).toBe(true);
  });

  it("session scope gives each session its own root; ro access mounts the workspace read-only", () => {
    const a = resolveSandboxContext({
      home,
      agentId: "main",
      sessionKey: "agent:main:a",
      agentWorkspaceDir: ws,
      sandbox: { mode: "all", scope: "session" },
    });
    const b = resolveSandboxContext({
      home,
      agentId: "main",
      sessionKey: "agent:main:b",
      agentWorkspaceDir: ws,
      sandbox: { mode: "all", scope: "session" },
    });
    expect(a.workspaceDir).not.toBe(b.workspaceDir);
    expect(a.workspaceDir.startsWith(join(home, "sandboxes"))).toBe(true);
    const ro = resolveSandboxContext({
      home,
      agentId: "main",
      sessionKey: "agent:main:a",
      agentWorkspaceDir: ws,
      sandbox: { mode: "all", workspaceAccess: "ro" },
    });
    expect(ro).toMatchObject({ enabled: true, workspaceDir: ws, readOnly: true });
  });

  it("reads agents.defaults.sandbox from tiller.json and ignores unknown values", () => {
    expect(readSandboxSettings({ agents: { defaults: { sandbox: { mode: "all", scope: "bogus" } } } })).toEqual({
      mode: "all",
      scope: "agent",
      workspaceAccess: "none",
    });
  });
});
