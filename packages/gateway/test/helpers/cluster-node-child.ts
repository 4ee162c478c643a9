/**
 * A cluster node in its own process, for tests that kill one with SIGKILL.
 * argv: <url> <nodeId> [leaseMs|-] [hold|quick]. Prints `ready <epoch>` once it has joined and `started <runId>`
 * when it begins a run. In `hold` mode (default) runs never end by themselves (they wait for an abort), so a
 * kill always catches them mid-run; in `quick` mode each run takes 100-200 ms and ends ok
 * (cluster cap 12, so every node is busy under load).
 */
import { ClusterNode, type ClusterRunExecutor } from "../../src/cluster/index.js";

const [url, nodeId, leaseArg, mode = "hold"] = process.argv.slice(2);
if (!url || !nodeId) {
  console.error("usage: cluster-node-child <url> <nodeId> [leaseMs|-] [hold|quick]");
  process.exit(2);
}
const leaseMs = leaseArg && leaseArg !== "-" ? Number(leaseArg) : undefined;
const hold: ClusterRunExecutor = (run, ctx) =>
  new Promise((resolve) => {
    ctx.emit("assistant", { delta: "working" });
    process.stdout.write(`started ${run.runId}\n`);
    ctx.signal.addEventListener("abort", () => resolve({ status: "aborted", summary: "aborted" }));
  });
const quick: ClusterRunExecutor = async (run, ctx) => {
  process.stdout.write(`started ${run.runId}\n`);
  ctx.emit("assistant", { delta: "working" });
  await new Promise((r) => setTimeout(r, 100 + Math.random() * 100));
  return { status: "ok", summary: "completed" };
};
const node = await ClusterNode.start({
  url,
  nodeId,
  // hold: the SIGKILL test gives it exactly three runs to hold
  maxLocalRuns: mode === "quick" ? 4 : 3,
  laneCaps: mode === "quick" ? { main: 12 } : undefined,
  lease: leaseMs ? { leaseMs, heartbeatMs: Math.max(200, leaseMs / 5) } : undefined,
  executor: mode === "quick" ? quick : hold,
});
process.stdout.write(`ready ${node.epoch}\n`);
process.on("SIGTERM", () => {
  void node.close({ abortRuns: true }).then(() => process.exit(0));
});
