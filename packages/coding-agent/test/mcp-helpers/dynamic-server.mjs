// A small MCP server on the official SDK, for behaviours the reference servers cannot trigger on demand: adding
// a tool at run time (notifications/tools/list_changed), observing a client's notifications/cancelled, and
// garbage (a stray non-JSON line on stdout, a result that breaks the protocol). Each cancellation it sees is
// appended to the file named by $CANCEL_LOG.
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "dynamic", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });

server.registerTool(
  "add_tool",
  { description: "Adds a tool named by `name`.", inputSchema: { name: z.string() } },
  async ({ name }) => {
    server.registerTool(name, { description: `Added at run time: ${name}` }, async () => ({
      content: [{ type: "text", text: `${name} ran` }],
    }));
    return { content: [{ type: "text", text: `added ${name}` }] };
  },
);

server.registerTool("wait_forever", { description: "Never answers until cancelled." }, async (extra) => {
  await new Promise((resolve) => {
    extra.signal.addEventListener("abort", () => {
      if (process.env.CANCEL_LOG) appendFileSync(process.env.CANCEL_LOG, `cancelled ${extra.requestId}\n`);
      resolve();
    });
  });
  return { content: [{ type: "text", text: "cancelled" }] };
});

server.registerTool("spew", { description: "Writes a line of garbage to stdout, then answers." }, async () => {
  process.stdout.write("garbage that is not JSON-RPC\n");
  return { content: [{ type: "text", text: "answered after garbage" }] };
});

server.registerTool("bad_result", { description: "Answers with a result that breaks the protocol." }, async () => ({
  content: [{ type: "no-such-content", payload: 1 }],
}));

await server.connect(new StdioServerTransport());
