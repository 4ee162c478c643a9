/**
 * The history of a stateless request: its earlier turns written as the transcript of the request's fresh
 * session before the run starts, so the run (any engine) reads them as it reads any session's history. The
 * session is new and its key unique to this request, so nothing else can hold its transcript yet.
 */
import { mkdirSync } from "node:fs";
import type { AgentMessage } from "@tiller/agent";
import { SessionManager } from "@tiller/coding-agent";
import type { GatewayCore } from "../server/gateway-core.js";

export function seedSessionHistory(
  core: GatewayCore,
  sessionKey: string,
  agentId: string,
  history: readonly AgentMessage[],
): void {
  if (history.length === 0) return;
  const entry = core.store.ensure(sessionKey, agentId);
  const dir = core.store.transcriptDir(agentId);
  mkdirSync(dir, { recursive: true });
  const agent = core.config.agents.list.find((a) => a.id === agentId);
  const sm = SessionManager.create(agent?.workspace ?? core.config.agents.defaults.workspace, { sessionDir: dir });
  try {
    sm.newSession({ id: entry.sessionId });
    for (const m of history) sm.appendMessage(m);
    const file = sm.getSessionFile();
    if (file) core.store.setSessionFile(sessionKey, file);
  } finally {
    sm.close();
  }
}
