/** A gated tool and a way to wait for the agent's approval requests, for the approvals tests. */
import { Type } from "@tiller/ai";
import type { Agent, AgentTool, PendingApproval, RequiresApproval } from "../../src/index.js";

const params = Type.Object({ command: Type.String() });

/** A tool that records what ran; `requiresApproval` as given (default: always). */
export function gatedTool(
  ran: string[],
  requiresApproval: RequiresApproval = true,
  name = "run",
  delay?: () => Promise<void>,
): AgentTool<typeof params> {
  return {
    name,
    label: name,
    description: "Run a command",
    parameters: params,
    requiresApproval,
    execute: async (_id, { command }, signal) => {
      if (delay) await delay();
      signal?.throwIfAborted();
      ran.push(command);
      return { content: [{ type: "text", text: `ran ${command}` }], details: { command } };
    },
  };
}

/** Resolves with the next `tool_approval_request` (or the n-th one from now). */
export function nextApproval(agent: Agent, count = 1): Promise<PendingApproval[]> {
  const got: PendingApproval[] = [];
  return new Promise((resolve) => {
    const off = agent.subscribe("tool_approval_request", (event) => {
      got.push(event.approval);
      if (got.length === count) {
        off();
        resolve(got);
      }
    });
  });
}
