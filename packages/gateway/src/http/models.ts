/** `GET /v1/models` and `GET /v1/models/{id}`: the agents this gateway offers as models (`tiller`, `tiller/<id>`). */
import type { ServerResponse } from "node:http";
import type { GatewayCore } from "../server/gateway-core.js";
import { HttpApiError, sendJson } from "./errors.js";
import { agentModelIds, agentOfModel } from "./targets.js";

function modelObject(core: GatewayCore, id: string) {
  return { id, object: "model", created: Math.floor(core.startedAt / 1000), owned_by: "tiller" };
}

export function listModels(core: GatewayCore, res: ServerResponse): void {
  sendJson(res, 200, { object: "list", data: agentModelIds(core).map((id) => modelObject(core, id)) });
}

/** `id` is the decoded path segment(s): `tiller/main` may arrive as `tiller%2Fmain` or as two segments. */
export function getModel(core: GatewayCore, id: string, res: ServerResponse): void {
  let agentId: string;
  try {
    agentId = agentOfModel(core, id);
  } catch {
    throw new HttpApiError(404, `model "${id}" not found`, "invalid_request_error", "model_not_found", "model");
  }
  const canonical = agentModelIds(core).includes(id) ? id : `tiller/${agentId}`;
  sendJson(res, 200, modelObject(core, canonical));
}
