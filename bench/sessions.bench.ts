/**
 * Session store: Tiller's SessionManager vs @mariozechner/pi-coding-agent 0.73.1's, in the same run, every case in
 * a fresh child process (so peak RSS is per case):
 *  - open + build context of a 10 MB and a 100 MB session (~2.3 KB entries: user, tool call, tool result,
 *    answer), against the floor "readFileSync + split + JSON.parse every line";
 *  - Tiller reopening the unchanged 100 MB file in the same process (parse cache);
 *  - listing 1,000 sessions (~40 KB each).
 * Data files are generated in a temp dir at run time and removed at the end. Each figure is the median of
 * SESSIONS_BENCH_REPS (default 3) fresh processes. With bench/reference installed, opening the 10 MB and
 * 100 MB sessions runs again under its Node 22 binary with Tiller and pi 1.6.0 (`@earendil-works/pi-coding-agent`),
 * Tiller read-only (the work pi's `open` does: read, index, context) and, for reference, opened for appending (which
 * also takes the cross-process writer lock pi lacks), SESSIONS_BENCH_PI16_ROUNDS processes each (default 9),
 * interleaved; it prints the least wall and CPU time of each with the wall spread, and the Tiller/pi-1.6 ratios.
 * The same rounds time the chunked floor (Tiller's way of reading: 64 KB chunks, JSON.parse per line) with its
 * results kept and dropped: pi-1.6/floor is the most an open that parses every line can lead by.
 * `npm run bench -- sessions`.
 */
import { spawnSync } from "node:child_process";
import {
  closeSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { hasPi16, importPi16, NODE22, pi16Label } from "./pi16.js";
import { recordTarget } from "./summary.js";

type CaseName =
  | "floor"
  | "floor-chunks"
  | "floor-drop"
  | "tiller"
  | "tiller-append"
  | "tiller-reopen"
  | "pi"
  | "pi16"
  | "list-tiller"
  | "list-pi";

interface CaseResult {
  name: CaseName;
  ms: number;
  /** CPU time of the child (all its threads: GC included) over the same span as `ms`. */
  cpuMs: number;
  entries: number;
  contextMessages: number;
  rssBeforeMb: number;
  peakRssMb: number;
}

const MB = 1024 * 1024;

// ---- data generation ----

function entryLines(targetBytes: number, cwd: string, idPrefix: string): Generator<string> {
  return (function* () {
    const ts = new Date(Date.UTC(2026, 0, 1)).toISOString();
    yield JSON.stringify({
      type: "session",
      version: 3,
      id: `${idPrefix}-0000-7000-8000-000000000000`,
      timestamp: ts,
      cwd,
    });
    let bytes = 0;
    let n = 0;
    let parent: string | null = null;
    const usage = {
      input: 1000,
      output: 100,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1100,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const body = "lorem ipsum dolor sit amet, consectetur adipiscing elit; ".repeat(60); // ~3.4 KB
    while (bytes < targetBytes) {
      const turn = n;
      const messages = [
        {
          role: "user",
          content: [{ type: "text", text: `question ${turn}: please look at file ${turn}` }],
          timestamp: turn,
        },
        {
          role: "assistant",
          content: [{ type: "toolCall", id: `call_${turn}`, name: "read", arguments: { path: `src/file${turn}.ts` } }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage,
          stopReason: "toolUse",
          timestamp: turn,
        },
        {
          role: "toolResult",
          toolCallId: `call_${turn}`,
          toolName: "read",
          content: [{ type: "text", text: body }],
          isError: false,
          timestamp: turn,
        },
        {
          role: "assistant",
          content: [{ type: "text", text: `The file ${turn} defines a few functions. ${body.slice(0, 1500)}` }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage,
          stopReason: "stop",
          timestamp: turn,
        },
      ];
      for (const message of messages) {
        const id = (n++).toString(16).padStart(8, "0");
        const line = JSON.stringify({ type: "message", id, parentId: parent, timestamp: ts, message });
        parent = id;
        bytes += line.length + 1;
        yield line;
      }
    }
  })();
}

function writeSession(path: string, targetBytes: number, cwd: string, idPrefix: string): void {
  const fd = openSync(path, "w");
  let buf: string[] = [];
  let size = 0;
  for (const line of entryLines(targetBytes, cwd, idPrefix)) {
    buf.push(line);
    size += line.length;
    if (size > 4 * MB) {
      writeSync(fd, `${buf.join("\n")}\n`);
      buf = [];
      size = 0;
    }
  }
  if (buf.length > 0) writeSync(fd, `${buf.join("\n")}\n`);
  closeSync(fd);
}

// ---- child: one case ----

/**
 * The least an open that keeps every parsed line can do, the way Tiller's reader reads: 64 KB chunks, each decoded
 * once and split on newlines, one `JSON.parse` per line. `keep: false` drops each result at once, so nothing
 * survives a scavenge: the difference is what the collector spends copying the entries out of the young generation.
 */
function chunkedParse(target: string, keep: boolean): number {
  const fd = openSync(target, "r");
  try {
    const size = fstatSync(fd).size;
    let buf = Buffer.allocUnsafe(64 * 1024);
    let filled = 0;
    let pos = 0;
    const kept: unknown[] = [];
    let count = 0;
    while (pos < size) {
      if (filled === buf.length) {
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, filled);
        buf = bigger;
      }
      const n = readSync(fd, buf, filled, Math.min(buf.length - filled, size - pos), pos);
      filled += n;
      pos += n;
      const lastNl = buf.lastIndexOf(10, filled - 1);
      if (lastNl < 0) continue;
      const text = buf.toString("utf8", 0, lastNl);
      let start = 0;
      while (start <= text.length) {
        let nl = text.indexOf("\n", start);
        if (nl < 0) nl = text.length;
        const value: unknown = JSON.parse(text.slice(start, nl));
        if (keep) kept.push(value);
        else if (value !== null) count++;
        start = nl + 1;
      }
      buf.copy(buf, 0, lastNl + 1, filled);
      filled -= lastNl + 1;
    }
    return (keep ? kept.length : count) - 1;
  } finally {
    closeSync(fd);
  }
}

async function runCase(name: CaseName, target: string): Promise<CaseResult> {
  const rssBefore = process.memoryUsage().rss;
  let entries = 0;
  let contextMessages = 0;
  let ms = 0;
  let c0 = process.cpuUsage();
  let cpu = { user: 0, system: 0 };
  if (name === "floor") {
    const t0 = performance.now();
    c0 = process.cpuUsage();
    const lines = readFileSync(target, "utf8").split("\n");
    const parsed: unknown[] = [];
    for (const l of lines) if (l) parsed.push(JSON.parse(l));
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
    entries = parsed.length - 1;
  } else if (name === "floor-chunks" || name === "floor-drop") {
    const t0 = performance.now();
    c0 = process.cpuUsage();
    entries = chunkedParse(target, name === "floor-chunks");
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
  } else if (name === "tiller" || name === "tiller-append" || name === "tiller-reopen") {
    const { SessionManager } = await import("@tiller/coding-agent");
    if (name === "tiller-reopen") SessionManager.open(target, { readOnly: true }).buildSessionContext();
    // Read-only is the work pi's open does (read, index, context: pi takes no lock and opens no descriptor until
    // its first append). `tiller-append` also takes the cross-process writer lock (lock-file create, link, unlink).
    const t0 = performance.now();
    c0 = process.cpuUsage();
    const sm = SessionManager.open(target, { readOnly: name !== "tiller-append" });
    const ctx = sm.buildSessionContext();
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
    entries = sm.getEntries().length;
    contextMessages = ctx.messages.length;
    sm.close();
  } else if (name === "pi" || name === "pi16") {
    const { SessionManager } = (
      name === "pi" ? await import("@mariozechner/pi-coding-agent") : await importPi16("pi-coding-agent")
    ) as typeof import("@mariozechner/pi-coding-agent");
    const t0 = performance.now();
    c0 = process.cpuUsage();
    const sm = SessionManager.open(target);
    const ctx = sm.buildSessionContext();
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
    entries = sm.getEntries().length;
    contextMessages = ctx.messages.length;
  } else if (name === "list-tiller") {
    const { SessionManager } = await import("@tiller/coding-agent");
    const t0 = performance.now();
    c0 = process.cpuUsage();
    const list = SessionManager.list("/bench", { sessionDir: target });
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
    entries = list.length;
  } else {
    const { SessionManager } = await import("@mariozechner/pi-coding-agent");
    const t0 = performance.now();
    c0 = process.cpuUsage();
    const list = await SessionManager.list("/bench", target);
    ms = performance.now() - t0;
    cpu = process.cpuUsage(c0);
    entries = list.length;
  }
  return {
    name,
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    entries,
    contextMessages,
    rssBeforeMb: rssBefore / MB,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

// ---- parent ----

const REPS = Number(process.env.SESSIONS_BENCH_REPS ?? 3);
/** Processes per implementation in the pi 1.6 comparison (interleaved). */
const PI16_ROUNDS = Number(process.env.SESSIONS_BENCH_PI16_ROUNDS ?? Math.max(REPS, 9));
const self = fileURLToPath(import.meta.url);

function spawnCase(name: CaseName, target: string, node = process.execPath): CaseResult {
  const res = spawnSync(
    node,
    ["--conditions=tiller-source", "--max-old-space-size=4096", "--import", "tsx", self, "--child", name, target],
    { encoding: "utf8", maxBuffer: 16 * MB },
  );
  const line = res.stdout.split("\n").find((l) => l.startsWith("{"));
  if (res.status !== 0 || !line) throw new Error(`case ${name} failed (${res.status}): ${res.stderr.slice(-2000)}`);
  return JSON.parse(line) as CaseResult;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

function measure(
  name: CaseName,
  target: string,
  node = process.execPath,
): { ms: number; peak: number; before: number; sample: CaseResult } {
  const runs: CaseResult[] = [];
  for (let i = 0; i < REPS; i++) runs.push(spawnCase(name, target, node));
  return {
    ms: median(runs.map((r) => r.ms)),
    peak: median(runs.map((r) => r.peakRssMb)),
    before: median(runs.map((r) => r.rssBeforeMb)),
    sample: runs[0] as CaseResult,
  };
}

const f1 = (n: number) => n.toFixed(1);

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "tiller-sessions-bench-"));
  try {
    console.log(`sessions bench: median of ${REPS} fresh processes per case; data in ${dir}`);
    console.log(
      "| size | case | open + build context | MB/s | vs floor speed | peak RSS | RSS before | entries -> context |",
    );
    console.log("| --- | --- | --- | --- | --- | --- | --- | --- |");
    const pi16Rows: string[] = [];
    const boundRows: string[] = [];
    for (const sizeMb of [10, 100]) {
      const file = join(dir, `s${sizeMb}.jsonl`);
      writeSession(file, sizeMb * MB, "/bench", `0190${sizeMb.toString().padStart(4, "0")}`);
      const realMb = statSync(file).size / MB;
      const floor = measure("floor", file);
      const floorSpeed = realMb / (floor.ms / 1000);
      for (const name of ["floor", "tiller", "tiller-reopen", "pi"] as const) {
        const m = name === "floor" ? floor : measure(name, file);
        const speed = realMb / (m.ms / 1000);
        console.log(
          `| ${f1(realMb)} MB | ${name} | ${f1(m.ms)} ms | ${f1(speed)} | ${(speed / floorSpeed).toFixed(2)}x | ${f1(m.peak)} MB | ${f1(m.before)} MB | ${m.sample.entries} -> ${m.sample.contextMessages} |`,
        );
      }
      if (hasPi16()) {
        // Both on bench/reference's Node 22 binary, in this run: processes interleaved, PI16_ROUNDS each; wall and
        // CPU time each the least over them (a loaded host only ever adds time), the wall spread reported.
        const t: CaseResult[] = [];
        const p: CaseResult[] = [];
        const a: CaseResult[] = [];
        const fk: CaseResult[] = [];
        const fd: CaseResult[] = [];
        for (let i = 0; i < PI16_ROUNDS; i++) {
          t.push(spawnCase("tiller", file, NODE22));
          p.push(spawnCase("pi16", file, NODE22));
          a.push(spawnCase("tiller-append", file, NODE22));
          fk.push(spawnCase("floor-chunks", file, NODE22));
          fd.push(spawnCase("floor-drop", file, NODE22));
        }
        const least = (rs: CaseResult[], k: "ms" | "cpuMs") => Math.min(...rs.map((r) => r[k]));
        const most = (rs: CaseResult[], k: "ms" | "peakRssMb") => Math.max(...rs.map((r) => r[k]));
        const cell = (rs: CaseResult[]) =>
          `${f1(least(rs, "ms"))} ms (${f1(least(rs, "ms"))}-${f1(most(rs, "ms"))}), CPU ${f1(least(rs, "cpuMs"))} ms, ${f1(median(rs.map((r) => r.peakRssMb)))} MB`;
        const lead = least(p, "ms") / least(t, "ms");
        const cpuLead = least(p, "cpuMs") / least(t, "cpuMs");
        const rss = median(t.map((r) => r.peakRssMb)) / median(p.map((r) => r.peakRssMb));
        pi16Rows.push(
          `| ${f1(realMb)} MB | ${cell(t)} | ${cell(p)} | ${lead.toFixed(2)}x${lead >= 1.5 ? "" : " (MISSED)"} | ${cpuLead.toFixed(2)}x | ${rss.toFixed(2)} | ${f1(least(a, "ms"))} ms: ${(least(p, "ms") / least(a, "ms")).toFixed(2)}x |`,
        );
        // The ceiling of the lead: pi 1.6 against an open that does nothing but read, split and JSON.parse (kept).
        const ceiling = least(p, "ms") / least(fk, "ms");
        boundRows.push(
          `| ${f1(realMb)} MB | ${f1(least(fk, "ms"))} ms, CPU ${f1(least(fk, "cpuMs"))} ms | ${f1(least(fd, "ms"))} ms, CPU ${f1(least(fd, "cpuMs"))} ms | ${f1(least(fk, "ms") - least(fd, "ms"))} ms | ${ceiling.toFixed(2)}x | ${(least(t, "ms") / least(fk, "ms")).toFixed(2)} |`,
        );
        recordTarget({
          bench: "sessions",
          row: `open + build context ${f1(realMb)} MB`,
          vs: pi16Label(),
          ratio: lead,
          target: 1.5,
          note: `CPU ${cpuLead.toFixed(2)}x, peak RSS tiller/pi ${rss.toFixed(2)}; with the writer lock ${(least(p, "ms") / least(a, "ms")).toFixed(2)}x; pi/floor ${ceiling.toFixed(2)}x`,
        });
      }
      rmSync(file);
    }
    if (pi16Rows.length > 0) {
      const version = spawnSync(NODE22, ["--version"], { encoding: "utf8" }).stdout.trim();
      console.log(`\nopen + build context, Tiller vs ${pi16Label()}, both on Node ${version} (bench/reference):`);
      console.log(
        `| size | tiller: least wall (spread), least CPU, median peak RSS | ${pi16Label()} | tiller/pi-1.6 wall (target >= 1.5x) | tiller/pi-1.6 CPU | peak RSS tiller/pi-1.6 | tiller opened for appending (+ writer lock), least wall: pi-1.6/tiller |`,
      );
      console.log("| --- | --- | --- | --- | --- | --- | --- |");
      for (const line of pi16Rows) console.log(line);
      console.log(
        "\nwhat bounds the lead, same runs: the floor reads 64 KB chunks, decodes and splits each, JSON.parses every line and keeps the results; without keeping them nothing survives a scavenge",
      );
      console.log(
        `| size | floor (kept): least wall, CPU | floor, results dropped | kept - dropped (the collector copying entries) | ${pi16Label()} / floor: the most any open that parses every line can lead by | tiller / floor time |`,
      );
      console.log("| --- | --- | --- | --- | --- | --- |");
      for (const line of boundRows) console.log(line);
    } else {
      console.log("\nbench/reference is not installed: the pi 1.6 rows are skipped (scripts/bench.mjs installs it).");
    }

    const listDir = join(dir, "list");
    mkdirSync(listDir);
    for (let i = 0; i < 1000; i++) {
      const id = `0190${i.toString(16).padStart(4, "0")}`;
      writeSession(
        join(listDir, `2026-01-01T00-00-00-000Z_${id}-0000-7000-8000-000000000000.jsonl`),
        40 * 1024,
        "/bench",
        id,
      );
    }
    console.log("\n| listing 1,000 sessions (40 KB each) | time | peak RSS | sessions |");
    console.log("| --- | --- | --- | --- |");
    const results: Record<string, number> = {};
    for (const name of ["list-tiller", "list-pi"] as const) {
      const m = measure(name, listDir);
      results[name] = m.ms;
      console.log(`| ${name.replace("list-", "")} | ${f1(m.ms)} ms | ${f1(m.peak)} MB | ${m.sample.entries} |`);
    }
    console.log(`listing: pi/tiller time = ${((results["list-pi"] ?? 0) / (results["list-tiller"] ?? 1)).toFixed(1)}x`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  const result = await runCase(process.argv[3] as CaseName, process.argv[4] as string);
  console.log(JSON.stringify(result));
} else {
  await main();
}
