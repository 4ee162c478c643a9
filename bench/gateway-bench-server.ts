/**
 * The gateway process the gateway benchmarks spawn: the product gateway (`startGateway`) on $TILLER_HOME with the
 * bench model registered, and with `--engine basic` the minimal engine (no tools, no compaction) that isolates the
 * gateway's own costs. Prints `listening ws://HOST:PORT` like `tiller gateway`.
 *   node --conditions=tiller-source --import tsx bench/gateway-bench-server.ts [--engine basic]
 *   node --import tsx bench/gateway-bench-server.ts --dist [--engine basic]
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { basicSessionFactory } from "./gateway-basic-session.js";
import { registerBenchModel } from "./gateway-bench-model.js";

// --dist: the built gateway (packages/*/dist, what `npm run build` made; started without the tiller-source
// condition, so every package resolves to its build), as the product runs, instead of the source through tsx.
const gateway = process.argv.includes("--dist") ? "../packages/gateway/dist" : "../packages/gateway/src";
const { stopOnSignals } = (await import(
  `${gateway}/cli/gateway-command.js`
)) as typeof import("../packages/gateway/src/cli/gateway-command.js");
const { resolveTillerHome } = (await import(
  `${gateway}/config/load-config.js`
)) as typeof import("../packages/gateway/src/config/load-config.js");
const { startGateway } = (await import(
  `${gateway}/start-gateway.js`
)) as typeof import("../packages/gateway/src/start-gateway.js");

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

// SIGUSR2 prints what the event loop and the GC did since the previous SIGUSR2 (the bench sends one before the
// load and one after it): `stats {…}` (JSON, see below).
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
let gc = { ms: 0, max: 0, count: 0, majorMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gc.ms += e.duration;
    gc.max = Math.max(gc.max, e.duration);
    gc.count++;
    // kind 4 (NODE_PERFORMANCE_GC_MAJOR) is a mark-sweep-compact of the old generation.
    if ((e as { detail?: { kind?: number } }).detail?.kind === 4) gc.majorMs += e.duration;
  }
}).observe({ entryTypes: ["gc"] });
// Peak of each part of the process's memory (V8 heap committed and used, buffers outside it), sampled every 50 ms.
let mem = { heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
setInterval(() => {
  const m = process.memoryUsage();
  mem = {
    heapTotal: Math.max(mem.heapTotal, m.heapTotal),
    heapUsed: Math.max(mem.heapUsed, m.heapUsed),
    external: Math.max(mem.external, m.external),
    arrayBuffers: Math.max(mem.arrayBuffers, m.arrayBuffers),
  };
}, 50).unref();
process.on("SIGUSR2", () => {
  const mb = (n: number): number => Math.round(n / 1048576);
  const stats = {
    heapTotalMb: mb(mem.heapTotal),
    heapUsedMb: mb(mem.heapUsed),
    externalMb: mb(mem.external),
    arrayBuffersMb: mb(mem.arrayBuffers),
    loopMaxMs: loop.max / 1e6,
    loopP99Ms: loop.percentile(99) / 1e6,
    gcMs: gc.ms,
    gcMaxMs: gc.max,
    gcCount: gc.count,
    majorGcMs: gc.majorMs,
  };
  loop.reset();
  gc = { ms: 0, max: 0, count: 0, majorMs: 0 };
  mem = { heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  process.stdout.write(`stats ${JSON.stringify(stats)}\n`);
});

// --alloc-prof <file>: V8's sampling heap profile of the load (first SIGUSR2 to the second), keeping the samples of
// objects that survived a scavenge and died later in a mark-compact, and dropping those that died young: what
// fills the old generation (live or promoted garbage), by allocating stack. Open the file in Chrome DevTools' Memory tab.
const allocProf = process.argv.includes("--alloc-prof") ? process.argv[process.argv.indexOf("--alloc-prof") + 1] : "";
if (allocProf) {
  const inspector = new Session();
  inspector.connect();
  const post = (method: string, params: object = {}): Promise<{ profile?: unknown }> =>
    new Promise((resolve, reject) =>
      inspector.post(method, params, (err, res) => (err ? reject(err) : resolve(res as { profile?: unknown }))),
    );
  let sampling = false;
  process.on("SIGUSR2", () => {
    sampling = !sampling;
    if (sampling) {
      void post("HeapProfiler.enable").then(() =>
        post("HeapProfiler.startSampling", {
          samplingInterval: 16384,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: false,
        }),
      );
    } else {
      void post("HeapProfiler.stopSampling").then((r) => writeFileSync(allocProf, JSON.stringify(r.profile)));
    }
  });
}
