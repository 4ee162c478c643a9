/**
 * How many session files this gateway process has open for writing (the coding agent's writer registry counts
 * them, one per file however many holders share it). Each run and compaction opens its session's writer and
 * closes it when it ends, so between runs the count is back at its baseline (0 when idle); `status` reports it
 * and a debug line follows each run, so a leak shows at once.
 */
import { openSessionWriterCount } from "@tiller/coding-agent";

/** `debug: session writers open: N (after …)` */
export function logSessionWriters(log: ((line: string) => void) | undefined, after: string): void {
  log?.(`debug: session writers open: ${openSessionWriterCount()} (after ${after})`);
}
