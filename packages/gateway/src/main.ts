/**
 * `npm start`: starts the gateway from $TILLER_HOME (default ~/.tiller) — on the offline model when no
 * provider is configured — and prints how to reach it. Ctrl-C stops it cleanly.
 */
import { loadConfig, resolveTillerHome } from "./config/load-config.js";
import { GatewayServer } from "./server/gateway-server.js";

const home = resolveTillerHome();
const config = loadConfig(home);
const server = await GatewayServer.start({
  config,
  token: process.env.TILLER_GATEWAY_TOKEN || undefined,
  port: process.env.TILLER_GATEWAY_PORT ? Number(process.env.TILLER_GATEWAY_PORT) : undefined,
  log: (line) => process.stderr.write(`${line}\n`),
});
const token = process.env.TILLER_GATEWAY_TOKEN || config.gateway.auth.token;
const lines = [
  "Tiller gateway — an agent you can steer while it runs.",
  `  listening  ${server.url}   (home ${home})`,
  server.core.models.isOffline
    ? "  model      offline (no provider configured: add one to models.json or set agents.defaults.model)"
    : `  model      ${server.core.models.defaultRef}`,
  "",
  "Talk to it from another terminal:",
  `  npx tiller-agent --url ${server.url}${token ? " --token <token>" : ""} --message "hello"`,
  `  npx tiller-gateway call health --url ${server.url}${token ? " --token <token>" : ""}`,
  "Any OpenClaw-protocol client (v3/v4) can connect to the same URL. Ctrl-C stops the gateway.",
];
process.stdout.write(`${lines.join("\n")}\n`);
let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  void server.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
