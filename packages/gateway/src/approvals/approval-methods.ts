/**
 * The approval methods: `exec.approval.list|get|resolve` and `plugin.approval.list|resolve` (scope
 * `operator.approvals`, from the catalog). The decider is named after the client that resolved.
 */
import { resolveSessionKey } from "../methods/agent-methods.js";
import { defineMethod, type MethodContext, type MethodDef } from "../methods/method-types.js";
import type { GatewayCore } from "../server/gateway-core.js";
import { execRecord, pluginRecord } from "./approval-wire.js";

/** Who decided, as `*.resolved` events show it: the client's display name or id. */
export function deciderOf(ctx: MethodContext): string {
  const client = ctx.conn.hello?.client;
  return client?.displayName ?? client?.id ?? "operator";
}

/** The canonical key of a `sessionKey` filter ("work" is "agent:main:work"). */
function keyFilter(core: GatewayCore, sessionKey: string | undefined): string | undefined {
  return sessionKey === undefined ? undefined : resolveSessionKey(core, { sessionKey }).key;
}

export const approvalMethods: MethodDef[] = [
  defineMethod("exec.approval.list", async ({ core, params }) => ({
    approvals: (await core.approvals.list("exec", keyFilter(core, params.sessionKey))).map(execRecord),
  })),
  defineMethod("exec.approval.get", async ({ core, params }) =>
    execRecord(await core.approvals.get("exec", params.id)),
  ),
  defineMethod("exec.approval.resolve", (ctx) =>
    ctx.core.approvals.resolve("exec", ctx.params.id, ctx.params.decision, {
      by: deciderOf(ctx),
      ...(ctx.params.reason !== undefined ? { reason: ctx.params.reason } : {}),
    }),
  ),
  defineMethod("plugin.approval.list", async ({ core, params }) => ({
    approvals: (await core.approvals.list("plugin", keyFilter(core, params.sessionKey))).map(pluginRecord),
  })),
  defineMethod("plugin.approval.resolve", (ctx) =>
    ctx.core.approvals.resolve("plugin", ctx.params.id, ctx.params.decision, {
      by: deciderOf(ctx),
      ...(ctx.params.reason !== undefined ? { reason: ctx.params.reason } : {}),
    }),
  ),
];
