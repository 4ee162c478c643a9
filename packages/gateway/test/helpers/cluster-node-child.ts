/**
 * A cluster node in its own process, for tests that kill one with SIGKILL. argv: <url> <nodeId> [leaseMs].
 * Prints `ready <epoch>` once it has joined and `started <runId>` when it begins a run; its runs never end by
 * themselves (they wait for an abort), so a kill always catches them mid-run.
 */
import { ClusterNode } from "../../src/cluster/index.js";

const [url, nodeId, leaseMs] = process.argv.slice(2);
if (!url || !nodeId) {
  console.error("usage: cluster-node-child <url> <nodeId> [leaseMs]");
  process.exit(2);
}
const node = await ClusterNode.start({
  url,
  nodeId,
  maxLocalRuns: 3, // the SIGKILL test gives it exactly three runs to hold
  lease: leaseMs ? { leaseMs: Number(leaseMs), heartbeatMs: Math.max(200, Number(leaseMs) / 5) } : undefined,
  executor: (run, ctx) =>
    new Promise((resolve) => {
      ctx.emit("assistant", { delta: "working" });
      process.stdout.write(`started ${run.runId}\n`);
      ctx.signal.addEventListener("abort", () => resolve({ status: "aborted", summary: "aborted" }));
    }),
});
process.stdout.write(`ready ${node.epoch}\n`);
process.on("SIGTERM", () => {
  void node.close({ abortRuns: true }).then(() => process.exit(0));
});
