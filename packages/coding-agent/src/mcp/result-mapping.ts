/**
 * MCP `tools/call` results → agent tool results. Text stays text; images (and image blobs in embedded resources)
 * become image blocks; embedded text resources become text headed by their URI; everything else (audio, other
 * blobs, resource links) becomes a one-line note, so the model knows it was there without receiving raw base64.
 */

import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { AgentToolResult } from "@tiller/agent";
import type { ImageContent, TextContent } from "@tiller/ai";

/** `details` of an MCP tool result. */
export interface McpToolDetails {
  server: string;
  /** The tool's name on the server. */
  tool: string;
  /** The server's `structuredContent`, when it sent one. */
  structuredContent?: Record<string, unknown>;
  /** Progress of a running call (only in `tool_execution_update` partial results). */
  progress?: { progress: number; total?: number; message?: string };
}

type Block = TextContent | ImageContent;
type McpContent = CallToolResult["content"][number];

function approxBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}

function mapBlock(block: McpContent): Block {
  switch (block.type) {
    case "text":
      return { type: "text", text: block.text };
    case "image":
      return { type: "image", data: block.data, mimeType: block.mimeType };
    case "audio":
      return { type: "text", text: `[audio: ${block.mimeType}, ${approxBytes(block.data)} bytes, not shown]` };
    case "resource": {
      const r = block.resource;
      if ("text" in r && typeof r.text === "string") {
        return { type: "text", text: `[resource ${r.uri}${r.mimeType ? ` (${r.mimeType})` : ""}]\n${r.text}` };
      }
      const blob = "blob" in r && typeof r.blob === "string" ? r.blob : "";
      if (r.mimeType?.startsWith("image/")) return { type: "image", data: blob, mimeType: r.mimeType };
      return {
        type: "text",
        text: `[resource ${r.uri} (${r.mimeType ?? "binary"}), ${approxBytes(blob)} bytes, not shown]`,
      };
    }
    case "resource_link":
      return {
        type: "text",
        text: `[resource link: ${block.name} ${block.uri}${block.description ? ` — ${block.description}` : ""}]`,
      };
    default:
      return { type: "text", text: `[unsupported MCP content: ${JSON.stringify(block).slice(0, 200)}]` };
  }
}

/** The text of a result, for error messages. */
export function resultText(content: readonly Block[]): string {
  return content
    .filter((b): b is TextContent => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/** Maps a result. `isError` is returned alongside: the adapter turns it into a failed tool call. */
export function mapCallToolResult(
  result: CallToolResult,
  server: string,
  tool: string,
): { result: AgentToolResult<McpToolDetails>; isError: boolean } {
  const content = (Array.isArray(result.content) ? result.content : []).map(mapBlock);
  const structured = result.structuredContent;
  // A server may answer only with structured content; the model still needs to see it.
  if (content.length === 0 && structured) content.push({ type: "text", text: JSON.stringify(structured) });
  if (content.length === 0) content.push({ type: "text", text: "(no content)" });
  const details: McpToolDetails = { server, tool };
  if (structured) details.structuredContent = structured;
  return { result: { content, details }, isError: result.isError === true };
}
