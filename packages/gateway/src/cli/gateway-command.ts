#!/usr/bin/env node
/**
 * `tiller-gateway` (run as `tiller gateway …`):
 *   tiller-gateway [--port N] [--bind ADDR] [--token T] [--password P]   start the gateway
 *   tiller-gateway call <method> [--params JSON] [--url ws://…] [--token T] [--expect-final] [--timeout MS]
 *   tiller-gateway sessions export <key…> | --all [--out FILE|DIR]
 * The first stdout line of a started gateway is `listening ws://HOST:PORT` (tests and scripts read it).
 */
import { randomUUID } from "node:crypto";
import { loadConfig, resolveTillerHome } from "../config/load-config.js";
import type { GatewayServer } from "../server/gateway-server.js";
import { startGateway } from "../start-gateway.js";
import { gatewayUrl, int, parseArgs, str, UsageError } from "./args.js";
import { isEntryPoint } from "./entry.js";
import { GatewayClient, GatewayRequestError } from "./gateway-client.js";
import { SESSIONS_HELP, sessionsCommand } from "./sessions-export-command.js";

const HELP = `Usage:
  tiller gateway [--port N] [--bind ADDR] [--token T] [--password P]
      Start the gateway (default 127.0.0.1:18789; a non-loopback --bind needs a token).
  tiller gateway call <method> [--params JSON] [--url ws://HOST:PORT] [--token T] [--expect-final] [--timeout MS]
      Call one method and print its JSON answer.
${SESSIONS_HELP}

Environment: TILLER_HOME (default ~/.tiller: tiller.json, models.json, sessions/),
             TILLER_GATEWAY_TOKEN, TILLER_GATEWAY_URL.`;

/** `tiller gateway [--port N] [--bind ADDR] [--token T] [--password P]`: the product gateway, from $TILLER_HOME. */
export async function startFromArgs(argv: readonly string[]): Promise<GatewayServer> {
  const args = parseArgs(argv, { switches: [], values: ["port", "bind", "token", "password"] });
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  // One faulty plugin or provider promise must not take every session down with the process.
  process.on("unhandledRejection", (err) => log(`unhandled rejection (gateway keeps serving): ${String(err)}`));
  return startGateway({
    home: resolveTillerHome(),
    port: int(args, "port"),
    bind: str(args, "bind"),
    token: str(args, "token") || process.env.TILLER_GATEWAY_TOKEN || undefined,
    password: str(args, "password"),
    log,
  });
}

async function call(argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { switches: ["expect-final", "json"], values: ["params", "url", "token", "timeout"] });
  const method = args.positional[0];
  if (!method) {
    process.stderr.write("tiller gateway call: missing <method>\n");
    return 2;
  }
  let params: unknown;
  const rawParams = str(args, "params");
  if (rawParams !== undefined) {
    try {
      params = JSON.parse(rawParams);
    } catch (err) {
      process.stderr.write(`--params is not valid JSON: ${(err as Error).message}\n`);
      return 2;
    }
  }
  if (method === "agent" && params && typeof params === "object" && !("idempotencyKey" in params)) {
    (params as Record<string, unknown>).idempotencyKey = randomUUID();
  }
  const config = loadConfig(resolveTillerHome());
  const client = await GatewayClient.connect(gatewayUrl(args, config.gateway.port), {
    token: str(args, "token") || process.env.TILLER_GATEWAY_TOKEN || config.gateway.auth.token,
    scopes: ["operator.admin"],
  });
  try {
    const payload = await client.request(method, params ?? {}, {
      expectFinal: args.flags.has("expect-final"),
      timeoutMs: int(args, "timeout"),
    });
    process.stdout.write(`${JSON.stringify(payload, null, 2)}\n`);
    return 0;
  } catch (err) {
    const message = err instanceof GatewayRequestError ? `${err.error.code}: ${err.message}` : String(err);
    process.stderr.write(`${message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}

/** `tiller gateway …`; resolves with the exit code (2 for bad usage, naming the flag). */
export async function main(argv: readonly string[]): Promise<number> {
  try {
    return await run(argv);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`tiller gateway: ${err.message} (see tiller gateway --help)\n`);
    return 2;
  }
}

async function run(argv: readonly string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h") || argv[0] === "help") {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (argv[0] === "call") return call(argv.slice(1));
  if (argv[0] === "sessions") return sessionsCommand(argv.slice(1));
  if (argv[0] && !argv[0].startsWith("-") && argv[0] !== "run" && argv[0] !== "start") {
    process.stderr.write(`tiller gateway: unknown command "${argv[0]}"\n${HELP}\n`);
    return 2;
  }
  const started = startFromArgs(argv[0] === "run" || argv[0] === "start" ? argv.slice(1) : argv);
  // Before anything is printed: a supervisor that sends SIGTERM as soon as it reads "listening" must get a clean
  // stop, never the default action (killed with the home lock and sessions left as they were).
  stopOnSignals(started);
  const server = await started;
  process.stdout.write(`listening ${server.url}\n`);
  if (server.core.models.isOffline) {
    process.stdout.write(
      "model: offline (no provider configured; add one in $TILLER_HOME/models.json or agents.defaults.model)\n",
    );
  } else {
    process.stdout.write(`model: ${server.core.models.defaultRef}\n`);
  }
  return new Promise<number>(() => {});
}

/**
 * Ctrl-C / SIGTERM: let plugins see gateway_stop, close every connection and run, then exit 0. Given the start's
 * promise, it is installed before the gateway listens: a signal during start-up waits for the start and then stops
 * it (a start that fails reports its own error and exit code).
 */
export function stopOnSignals(server: GatewayServer | Promise<GatewayServer>): void {
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    Promise.resolve(server).then(
      (s) =>
        s.close("signal").then(
          () => process.exit(0),
          (err: unknown) => {
            process.stderr.write(`tiller gateway: stopping failed: ${String(err)}\n`);
            process.exit(1);
          },
        ),
      () => undefined,
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`tiller gateway: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    },
  );
}
