// Not an MCP server: answers every line on stdin with text that is not JSON-RPC.
process.stdin.on("data", () => process.stdout.write("this is not json\n{broken\n"));
