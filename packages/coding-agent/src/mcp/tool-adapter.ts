/**
 * An MCP server tool as an agent tool named `mcp__<server>__<tool>`, with the server's description and input
 * schema (plain JSON Schema, validated by the agent like every tool's). It goes through the same pipeline as a
 * built-in: policy, hooks and extensions see it by that name.
 */

import { createHash } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AgentTool, AgentToolResult } from "@tiller/agent";
import type { TSchema } from "@tiller/ai";
import type { McpConnection } from "./connection.js";
import { type McpToolDetails, mapCallToolResult, resultText } from "./result-mapping.js";

/** Providers accept `^[a-zA-Z0-9_-]{1,64}$` as tool names. */
const MAX_NAME = 64;

/**
 * `mcp__<server>__<tool>`; characters providers reject become `_`, and a name longer than 64 is cut and given
 * a short hash of the full name so two long names stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const clean = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, "_");
  const full = `mcp__${clean(server)}__${clean(tool)}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash("sha256").update(`${server}\0${tool}`).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** The error a failed MCP call throws: the agent turns it into an error tool result carrying this text. */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "McpToolError";
  }
}

function inputSchema(tool: Tool): TSchema {
  const schema = tool.inputSchema as Record<string, unknown>;
  // The MCP spec requires an object schema; a server that omits `type` still means one.
  return { ...schema, type: "object", properties: schema.properties ?? {} } as unknown as TSchema;
}

export function createMcpAgentTool(connection: McpConnection, tool: Tool): AgentTool<TSchema, McpToolDetails> {
  const server = connection.name;
  return {
    name: mcpToolName(server, tool.name),
    label: `${tool.title ?? tool.annotations?.title ?? tool.name} (${server})`,
    description: tool.description ?? `Tool ${tool.name} of MCP server ${server}.`,
    parameters: inputSchema(tool),
    async execute(_id, params, signal, onUpdate): Promise<AgentToolResult<McpToolDetails>> {
      const raw = await connection.callTool(tool.name, (params ?? {}) as Record<string, unknown>, {
        ...(signal ? { signal } : {}),
        ...(onUpdate
          ? {
              onProgress: (p) => {
                const of = p.total !== undefined ? `/${p.total}` : "";
                const progress = {
                  progress: p.progress,
                  ...(p.total !== undefined ? { total: p.total } : {}),
                  ...(p.message !== undefined ? { message: p.message } : {}),
                };
                onUpdate({
                  content: [{ type: "text", text: `progress ${p.progress}${of}${p.message ? `: ${p.message}` : ""}` }],
                  details: { server, tool: tool.name, progress },
                });
              },
            }
          : {}),
      });
      const { result, isError } = mapCallToolResult(raw, server, tool.name);
      if (isError) throw new McpToolError(resultText(result.content) || `MCP tool ${tool.name} failed`);
      return result;
    },
  };
}
