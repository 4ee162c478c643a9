/**
 * Which files may configure MCP servers, and a check cheap enough for every start-up (no parsing, no schema):
 * projects without MCP servers never load the MCP code.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { getTillerPaths } from "../home.js";
import type { McpServerScope } from "./types.js";

/** The config files that may hold MCP servers, lowest precedence first. */
export function mcpConfigFiles(cwd: string, home: string): { file: string; scope: McpServerScope; key: string }[] {
  return [
    { file: getTillerPaths(home).settings, scope: "user", key: "mcpServers" },
    { file: join(cwd, ".mcp.json"), scope: "project", key: "mcpServers" },
    { file: join(cwd, ".tiller", "settings.json"), scope: "project", key: "mcpServers" },
  ];
}

/** Cheap check (no parsing) used to keep MCP code off the start-up path of projects without servers. */
export function mayHaveMcpServers(cwd: string, home: string): boolean {
  for (const { file } of mcpConfigFiles(cwd, home)) {
    if (!existsSync(file)) continue;
    try {
      if (readFileSync(file, "utf8").includes("mcpServers")) return true;
    } catch {
      // unreadable: reported by the full load
    }
  }
  return false;
}
