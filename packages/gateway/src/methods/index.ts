/** Every method the gateway serves, by name. */
import { approvalMethods } from "../approvals/approval-methods.js";
import { agentMethods } from "./agent-methods.js";
import { chatMethods } from "./chat-methods.js";
import { type MethodTable, methodTable } from "./method-types.js";
import { sessionsMethods } from "./sessions-methods.js";
import { systemMethods } from "./system-methods.js";

export function builtinMethods(): MethodTable {
  return methodTable([...systemMethods, ...agentMethods, ...chatMethods, ...sessionsMethods, ...approvalMethods]);
}

export type { MethodContext, MethodDef, MethodHandler, MethodTable } from "./method-types.js";
export { defineCustomMethod, defineMethod, methodTable } from "./method-types.js";
