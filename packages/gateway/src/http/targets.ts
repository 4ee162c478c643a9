/**
 * Where a request runs. `model` names an agent, not a backend model: `tiller` / `tiller/default` (the default
 * agent), `tiller/<agentId>`, and the reference's `openclaw…` and `agent:<id>` spellings. The session is fresh
 * per request (stateless) unless `x-tiller-session-key`, the `user` field or a previous response selects one.
 * `x-tiller-agent-id` names the agent directly, whatever `model` says.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { resolveSessionKey } from "../methods/agent-methods.js";
import { hasScope } from "../protocol/scopes.js";
import type { GatewayCore } from "../server/gateway-core.js";
import { HttpApiError } from "./errors.js";
import type { HttpCaller } from "./types.js";

/** The model ids `/v1/models` lists: `tiller`, then `tiller/<agentId>` for each agent. */
export function agentModelIds(core: GatewayCore): string[] {
  return ["tiller", ...core.config.agents.list.map((a) => `tiller/${a.id}`)];
}

/** The agent a `model` value names; 404 (`model_not_found`) for anything else. */
export function agentOfModel(core: GatewayCore, model: string): string {
  const agents = core.config.agents;
  const m = /^(?:(?:tiller|openclaw)(?:[/:](.+))?|agent:(.+))$/i.exec(model.trim());
  const id = m ? (m[1] ?? m[2]) : undefined;
  if (m && (id === undefined || id.toLowerCase() === "default")) return agents.defaultId;
  const found = id && agents.list.find((a) => a.id === id.toLowerCase());
  if (!found) {
    throw new HttpApiError(
      404,
      `model "${model}" is not an agent of this gateway (see GET /v1/models: tiller, tiller/<agentId>)`,
      "invalid_request_error",
      "model_not_found",
      "model",
    );
  }
  return found.id;
}

function agentOfHeader(core: GatewayCore, id: string): string {
  const found = core.config.agents.list.find((a) => a.id === id.toLowerCase());
  if (!found) {
    throw new HttpApiError(
      400,
      `unknown agent "${id}" (see agents.list)`,
      "invalid_request_error",
      "unknown_agent",
      "x-tiller-agent-id",
    );
  }
  return found.id;
}

export interface RunTarget {
  agentId: string;
  sessionKey: string;
  stateless: boolean;
  /** `x-tiller-model`, checked for admin scope. */
  model?: string;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s?.trim() || undefined;
}

/**
 * The agent, session and backend model of a request. `sessionKey` (a previous response's session) wins over the
 * header, which wins over `user`.
 */
export function resolveTarget(
  core: GatewayCore,
  req: IncomingMessage,
  caller: HttpCaller,
  body: { model: string; user?: string },
  sessionKey?: string,
): RunTarget {
  // `x-tiller-agent-id` picks the agent for clients that cannot choose the model name (any `model` is then fine).
  const agentHeader = header(req, "x-tiller-agent-id");
  const agentId = agentHeader ? agentOfHeader(core, agentHeader) : agentOfModel(core, body.model);
  const model = header(req, "x-tiller-model");
  if (model && !hasScope(caller.scopes, "operator.admin")) {
    throw new HttpApiError(403, "x-tiller-model needs the operator.admin scope", "permission_error", "missing_scope");
  }
  if (model && !core.models.resolve(model)) {
    throw new HttpApiError(
      400,
      `unknown backend model "${model}" (see models.list)`,
      "invalid_request_error",
      "model_not_found",
      "x-tiller-model",
    );
  }
  const explicit = sessionKey ?? header(req, "x-tiller-session-key");
  if (explicit) {
    const s = resolveSessionKey(core, { sessionKey: explicit, agentId });
    return { agentId: s.agentId, sessionKey: s.key, stateless: false, model };
  }
  if (body.user) return { agentId, sessionKey: `agent:${agentId}:openai-user:${body.user}`, stateless: false, model };
  return { agentId, sessionKey: `agent:${agentId}:http:${randomUUID()}`, stateless: true, model };
}
