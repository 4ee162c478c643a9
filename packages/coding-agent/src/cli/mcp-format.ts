/** MCP server status as text, shared by `tiller mcp list` and the TUI's `/mcp`. */
import type { McpServerStatus } from "../mcp/types.js";

export function formatMcpStatus(servers: readonly McpServerStatus[]): string {
  if (servers.length === 0) {
    return "No MCP servers configured (.mcp.json, or mcpServers in $TILLER_HOME/settings.json or .tiller/settings.json).";
  }
  const lines: string[] = [];
  for (const s of servers) {
    const info = s.serverInfo ? ` · ${s.serverInfo.name} ${s.serverInfo.version}` : "";
    const restarts = s.restarts > 0 ? ` · ${s.restarts} restart${s.restarts === 1 ? "" : "s"}` : "";
    lines.push(`${s.name}  ${s.state}  (${s.transport}, ${s.scope}${info}${restarts})`);
    if (s.error) lines.push(`  error: ${s.error}`);
    if (s.tools.length > 0) lines.push(`  tools: ${s.tools.join(", ")}`);
  }
  return lines.join("\n");
}
