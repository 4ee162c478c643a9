/**
 * The gateway process the gateway benchmarks spawn: the product gateway (`startGateway`) on $TILLER_HOME with the
 * bench model registered, and with `--engine basic` the minimal engine (no tools, no compaction) that isolates the
 * gateway's own costs. Prints `listening ws://HOST:PORT` like `tiller gateway`.
 *   node --conditions=tiller-source --import tsx bench/gateway-bench-server.ts [--engine basic]
 */
import { join } from "node:path";
import { resolveTillerHome } from "../packages/gateway/src/config/load-config.js";
import { startGateway } from "../packages/gateway/src/start-gateway.js";
import { basicSessionFactory } from "./gateway-basic-session.js";
import { registerBenchModel } from "./gateway-bench-model.js";

registerBenchModel();
const home = resolveTillerHome();
const basic = process.argv.includes("--engine") && process.argv[process.argv.indexOf("--engine") + 1] === "basic";
const server = await startGateway({
  home,
  port: 0,
  ...(basic ? { sessionFactory: basicSessionFactory((id) => join(home, "sessions", "gateway", id)) } : {}),
});
process.stdout.write(`listening ${server.url}\n`);
const stop = (): void => void server.close("signal").then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
