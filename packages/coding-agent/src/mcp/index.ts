export * from "./config.js";
export * from "./config-files.js";
export * from "./config-schema.js";
export { MCP_DEFAULTS } from "./connection.js";
export * from "./manager.js";
export * from "./result-mapping.js";
export { createMcpAgentTool, McpToolError, mcpToolName } from "./tool-adapter.js";
export * from "./trust.js";
export type * from "./types.js";
