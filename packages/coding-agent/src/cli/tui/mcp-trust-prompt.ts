/**
 * The TUI's trust question for project MCP servers, asked inline on the terminal before the UI takes over the
 * screen (the servers must connect before the first model request). Each server shows the program or URL it
 * would start or contact; only a "y" trusts it, and the answer is remembered by the caller.
 */
import { createInterface } from "node:readline/promises";
import type { McpServerDefinition } from "../../mcp/types.js";

function describe(s: McpServerDefinition): string {
  const c = s.config;
  return "command" in c ? [c.command, ...(c.args ?? [])].join(" ") : `${c.type} ${c.url}`;
}

export async function askMcpTrust(servers: McpServerDefinition[]): Promise<McpServerDefinition[]> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  const accepted: McpServerDefinition[] = [];
  try {
    process.stdout.write("This project configures MCP servers that would run on your machine:\n");
    for (const s of servers) {
      const answer = await rl.question(`  ${s.name} (${s.file}): ${describe(s)}\n  Trust and start it? [y/N] `);
      if (/^y(es)?$/i.test(answer.trim())) accepted.push(s);
    }
  } finally {
    rl.close();
  }
  return accepted;
}
