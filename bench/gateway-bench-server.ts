/**
 * The gateway process the gateway benchmarks spawn: the product gateway (`startGateway`) on $TILLER_HOME with the
 * bench model registered, and with `--engine basic` the minimal engine (no tools, no compaction) that isolates the
 * gateway's own costs. Prints `listening ws://HOST:PORT` like `tiller gateway`.
 *   node --conditions=tiller-source --import tsx bench/gateway-bench-server.ts [--engine basic]
 */
import { join } from "node:path";
import { stopOnSignals } from "../packages/gateway/src/cli/gateway-command.js";
import { resolveTillerHome } from "../packages/gateway/src/config/load-config.js";
import { startGateway } from "../packages/gateway/src/start-gateway.js";
import { basicSessionFactory } from "./gateway-basic-session.js";
import { registerBenchModel } from "./gateway-bench-model.js";

registerBenchModel();
const home = resolveTillerHome();
const basic = process.argv.includes("--engine") && process.argv[process.argv.indexOf("--engine") + 1] === "basic";
const started = startGateway({
  home,
  port: 0,
  ...(basic ? { sessionFactory: basicSessionFactory((id) => join(home, "sessions", "gateway", id)) } : {}),
});
// Before `listening` is printed, so the bench's SIGTERM right after a run always gets a clean stop.
stopOnSignals(started);
process.stdout.write(`listening ${(await started).url}\n`);
