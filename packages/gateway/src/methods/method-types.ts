/** The shape of a gateway method: the scope it needs and its handler. */
import type { ErrorShape } from "../protocol/frames.js";
import type { Scope } from "../protocol/scopes.js";
import type { Connection } from "../server/connection.js";
import type { GatewayCore } from "../server/gateway-core.js";

export interface MethodContext {
  core: GatewayCore;
  conn: Connection;
  /** The request id; every response to it carries this id. */
  id: string;
  params: unknown;
  /** Sends an `ok:true` response. `agent` calls it twice (accepted, then final). */
  respond(payload: unknown): void;
  respondError(error: ErrorShape, payload?: unknown): void;
}

/**
 * A handler returns the payload (sent as the response) or undefined when it responds itself. Throwing a
 * GatewayError answers with that error; any other throw answers UNAVAILABLE.
 */
export type MethodHandler = (ctx: MethodContext) => unknown | Promise<unknown>;

export interface MethodDef {
  scope: Scope;
  handler: MethodHandler;
}

export type MethodTable = Record<string, MethodDef>;
