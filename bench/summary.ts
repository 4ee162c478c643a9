/**
 * The targets of issue 13, collected across bench files: each bench records its target rows here, and
 * scripts/bench.mjs prints one table of them (ratio, target, PASS/MISS) after the last bench. The rows go to the
 * file named by TILLER_BENCH_SUMMARY (set by scripts/bench.mjs), one JSON object a line; a bench run on its own
 * just prints them.
 */
import { appendFileSync } from "node:fs";

export interface TargetRow {
  /** The bench file's short name (`sessions`, `agent-loop`, ...). */
  bench: string;
  /** What was measured, e.g. "open + build context 100 MB". */
  row: string;
  /** What it is compared with: "pi 0.73.1", "pi 1.6.0", or "" for a ratio of Tiller alone. */
  vs: string;
  ratio: number;
  /** The bound the ratio must meet. */
  target: number;
  /** "min": ratio >= target (a lead); "max": ratio <= target (flatness, memory). */
  kind?: "min" | "max";
  /** Anything else worth a glance (CPU ratio, spread). */
  note?: string;
}

export function passes(row: TargetRow): boolean {
  return (row.kind ?? "min") === "min" ? row.ratio >= row.target : row.ratio <= row.target;
}

export function recordTarget(row: TargetRow): void {
  const file = process.env.TILLER_BENCH_SUMMARY;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
  else
    console.log(
      `target: ${row.row} vs ${row.vs || "-"}: ${row.ratio.toFixed(2)} (${(row.kind ?? "min") === "min" ? ">=" : "<="} ${row.target}) ${passes(row) ? "PASS" : "MISS"}`,
    );
}
