#!/usr/bin/env node
/**
 * `tiller-mcp` (run as `tiller mcp serve …`): a running gateway as an MCP server.
 *   tiller-mcp serve [--url ws://HOST:PORT] [--token T]                      MCP over stdio
 *   tiller-mcp serve --http PORT [--bind ADDR] [--http-token T] [--url …]    MCP over streamable HTTP at /mcp
 * The gateway is found the way `tiller agent` finds it (--url, $TILLER_GATEWAY_URL, the configured port; token
 * from --token, $TILLER_GATEWAY_TOKEN or tiller.json). HTTP needs a bearer token (--http-token or
 * $TILLER_MCP_TOKEN), binds 127.0.0.1 by default, and prints `mcp listening http://HOST:PORT/mcp` on stdout.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gatewayUrl, int, parseArgs, str, UsageError } from "../cli/args.js";
import { isEntryPoint } from "../cli/entry.js";
import { loadConfig, resolveTillerHome } from "../config/load-config.js";
import { GatewayLink } from "./gateway-link.js";
import { createGatewayMcpServer } from "./gateway-mcp-server.js";

const HELP = `Usage:
  tiller mcp serve [--url ws://HOST:PORT] [--token T]
      Serve the gateway's sessions as MCP tools over stdio.
  tiller mcp serve --http PORT [--bind ADDR] [--http-token T] [--url ws://HOST:PORT] [--token T]
      The same over streamable HTTP at http://ADDR:PORT/mcp (Authorization: Bearer <http-token>).
Tools: sessions_list, session_history, send_message (reply streamed as progress), abort_run.`;

function bearerOk(req: IncomingMessage, token: string): boolean {
  const given = Buffer.from(req.headers.authorization ?? "");
  const wanted = Buffer.from(`Bearer ${token}`);
  // Constant-time comparison: the token is the only thing guarding the gateway here.
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

async function serveHttp(link: GatewayLink, port: number, bind: string, token: string): Promise<() => Promise<void>> {
  const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/mcp") {
      res.writeHead(404).end("not found: the MCP endpoint is /mcp\n");
      return;
    }
    if (!bearerOk(req, token)) {
      res.writeHead(401, { "www-authenticate": "Bearer" }).end("unauthorized\n");
      return;
    }
    if (req.method !== "POST") {
      // Stateless server: no standalone event stream and no sessions to delete.
      res.writeHead(405, { allow: "POST" }).end();
      return;
    }
    // Stateless: one server and transport per request; a tools/call streams its progress on this response.
    void (async () => {
      const server = await createGatewayMcpServer(link);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, bind, () => resolve());
  });
  const addr = http.address() as AddressInfo;
  const host = addr.family === "IPv6" ? `[${addr.address}]` : addr.address;
  process.stdout.write(`mcp listening http://${host}:${addr.port}/mcp\n`);
  return () => new Promise((r) => http.close(() => r()));
}

/** `tiller mcp …`; resolves with the exit code (2 for bad usage, naming the flag). */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`tiller mcp: ${err.message} (see tiller mcp --help)\n`);
    return 2;
  }
}

async function run(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { switches: [], values: ["http", "http-token", "token", "url", "bind"] });
  if (args.flags.has("help") || args.positional[0] !== "serve") {
    (args.flags.has("help") ? process.stdout : process.stderr).write(`${HELP}\n`);
    return args.flags.has("help") ? 0 : 2;
  }
  const config = loadConfig(resolveTillerHome());
  const httpPort = int(args, "http");
  const httpToken = str(args, "http-token") || process.env.TILLER_MCP_TOKEN;
  if (httpPort !== undefined && !httpToken) {
    process.stderr.write("tiller mcp serve --http needs a token: --http-token T or $TILLER_MCP_TOKEN\n");
    return 2;
  }
  const link = await GatewayLink.connect(
    gatewayUrl(args, config.gateway.port),
    str(args, "token") || process.env.TILLER_GATEWAY_TOKEN || config.gateway.auth.token,
  );
  let closeHttp: (() => Promise<void>) | undefined;
  const done = new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
    if (httpPort === undefined) process.stdin.once("end", resolve); // the MCP client closed stdio
  });
  if (httpPort !== undefined) {
    closeHttp = await serveHttp(link, httpPort, str(args, "bind") ?? "127.0.0.1", httpToken as string);
  } else {
    const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
    const server = await createGatewayMcpServer(link);
    await server.connect(new StdioServerTransport());
  }
  await done;
  await closeHttp?.();
  await link.close();
  return 0;
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`tiller mcp: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
