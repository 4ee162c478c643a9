/**
 * Commands the user runs directly (pi's `!cmd`), outside the model's tool calls: output is sanitized, streamed
 * to `onChunk`, kept as a bounded tail and spilled whole to a temp file once it outgrows the tool limits. The
 * result becomes a `bashExecution` message of the session.
 */

import { StringDecoder } from "node:string_decoder";
import type { BashResult } from "../runtime/rpc-client.js";
import type { BashOperations } from "../tools/bash.js";
import { OutputSink, sanitizeOutput } from "../tools/output-sink.js";

export type { BashResult } from "../runtime/rpc-client.js";

export interface UserBashOptions {
  /** Each piece of sanitized output as it arrives. */
  onChunk?: (chunk: string) => void;
  /** Aborting kills the command; the result is then `cancelled` with no exit code. */
  signal?: AbortSignal;
}

/** Runs `command` in `cwd` through `operations`. Rejects only when the command could not run (and was not aborted). */
export async function runUserBash(
  command: string,
  cwd: string,
  operations: BashOperations,
  options: UserBashOptions = {},
): Promise<BashResult> {
  const { onChunk, signal } = options;
  const sink = new OutputSink({ spillPrefix: "tiller-bash" });
  const decoder = new StringDecoder("utf8");
  const onData = (data: Buffer) => {
    const text = sanitizeOutput(decoder.write(data));
    if (text === "") return;
    sink.write(text);
    onChunk?.(text);
  };
  let exitCode: number | null = null;
  try {
    exitCode = (await operations.exec(command, cwd, { onData, ...(signal ? { signal } : {}) })).exitCode;
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
  const rest = sanitizeOutput(decoder.end());
  if (rest) {
    sink.write(rest);
    onChunk?.(rest);
  }
  const snap = await sink.finish();
  const cancelled = signal?.aborted === true;
  return {
    output: snap.text,
    exitCode: cancelled || exitCode === null ? undefined : exitCode,
    cancelled,
    truncated: snap.truncation.truncated,
    ...(snap.fullOutputPath ? { fullOutputPath: snap.fullOutputPath } : {}),
  };
}
