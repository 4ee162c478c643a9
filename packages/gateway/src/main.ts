/**
 * `npm start`: starts the gateway from $TILLER_HOME (default ~/.tiller) — on the offline model when no
 * provider is configured — with the same set-up as `tiller gateway` (plugins, hooks, tools, reply shaping),
 * and prints how to reach it. Ctrl-C stops it cleanly.
 */
import { startFromArgs, stopOnSignals } from "./cli/gateway-command.js";
import { resolveTillerHome } from "./config/load-config.js";

const argv = process.env.TILLER_GATEWAY_PORT ? ["--port", process.env.TILLER_GATEWAY_PORT] : [];
const started = startFromArgs(argv);
// Installed before the gateway listens, so a SIGTERM right after start-up stops it cleanly (see stopOnSignals).
stopOnSignals(started);
const server = await started.catch((err: unknown) => {
  // E.g. another gateway on this home: its message names that gateway and says what to do.
  process.stderr.write(`tiller gateway: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
const token = process.env.TILLER_GATEWAY_TOKEN || server.core.config.gateway.auth.token;
const auth = token ? " --token <token>" : "";
const lines = [
  "Tiller gateway — an agent you can steer while it runs.",
  `  listening  ${server.url}   (home ${resolveTillerHome()})`,
  `  web page   ${server.url.replace(/^ws/, "http")}/${token ? "   (log in with the gateway token)" : ""}`,
  server.core.models.isOffline
    ? "  model      offline (no provider configured: add one to models.json or set agents.defaults.model)"
    : `  model      ${server.core.models.defaultRef}`,
  "",
  "Talk to it from another terminal:",
  `  npx tiller agent --url ${server.url}${auth} --session demo --message "hello"`,
  `  npx tiller gateway call sessions.list --url ${server.url}${auth}`,
  "(or node packages/gateway/dist/cli/agent-command.js …). Any OpenClaw-protocol client (v3/v4) can connect",
  "to the same URL. Ctrl-C stops the gateway.",
];
process.stdout.write(`${lines.join("\n")}\n`);
