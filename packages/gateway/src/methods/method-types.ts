/**
 * One typed definition per method: its spec from the protocol catalog (name, scope, params schema, result
 * schema) plus its handler. The server validates params with the compiled schema before the handler runs, checks
 * the scope, and lists the names in hello-ok.
 */
import type { Static, TSchema } from "typebox";
import type { ErrorShape } from "../protocol/frames.js";
import { METHOD_SPECS, type MethodName, type MethodSpec, type Scope } from "../protocol/schema/methods.js";
import { type CompiledSchema, compileSchema } from "../protocol/schema/validate.js";
import type { Connection } from "../server/connection.js";
import type { GatewayCore } from "../server/gateway-core.js";

export interface MethodContext<P = unknown, R = unknown> {
  core: GatewayCore;
  conn: Connection;
  /** The request id; every response to it carries this id. */
  id: string;
  /** The params, already validated against the method's schema. */
  params: P;
  /** Sends an `ok:true` response. `agent` calls it twice (accepted, then final). */
  respond(payload: R): void;
  respondError(error: ErrorShape, payload?: unknown): void;
}

/**
 * A handler returns the payload (sent as the response) or undefined when it responds itself. Throwing a
 * GatewayError answers with that error; any other throw answers UNAVAILABLE.
 */
export type MethodHandler<P = unknown, R = unknown> = (
  ctx: MethodContext<P, R>,
) => R | undefined | Promise<R | undefined>;

/** A method ready to serve: its spec, the compiled params validator and the handler. */
export interface MethodDef {
  readonly name: string;
  readonly scope: Scope;
  readonly spec: MethodSpec;
  readonly params: CompiledSchema<TSchema>;
  readonly handler: MethodHandler;
}

export type MethodTable = Record<string, MethodDef>;

type SpecOf<N extends MethodName> = (typeof METHOD_SPECS)[N];

/** Binds a handler to a catalog method; its params and result types come from the method's schemas. */
export function defineMethod<N extends MethodName>(
  name: N,
  handler: MethodHandler<Static<SpecOf<N>["params"]>, Static<SpecOf<N>["result"]>>,
): MethodDef {
  return defineCustomMethod(name, METHOD_SPECS[name] as MethodSpec<SpecOf<N>["params"], SpecOf<N>["result"]>, handler);
}

/** A method outside the catalog (embedders, plugins): the same definition with its own spec. */
export function defineCustomMethod<P extends TSchema, R extends TSchema>(
  name: string,
  spec: MethodSpec<P, R>,
  handler: MethodHandler<Static<P>, Static<R>>,
): MethodDef {
  return { name, scope: spec.scope, spec, params: compileSchema(spec.params), handler: handler as MethodHandler };
}

/** A table keyed by name. */
export function methodTable(defs: readonly MethodDef[]): MethodTable {
  const out: MethodTable = {};
  for (const d of defs) out[d.name] = d;
  return out;
}
