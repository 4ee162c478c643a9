/**
 * Runs one HTTP request as a normal gateway run: the same submission as the `agent` RPC (slash commands,
 * `GatewayCore.submit`, so the session's lane, queue mode, hooks, plugins, failover and transcript all apply),
 * with the reply's text deltas passed to the caller as they stream and the outcome (text, real usage) at the end.
 * `abort()` (a client that went away) aborts the run, queued or running.
 */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { handleSlashCommand } from "../methods/commands.js";
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import type { GatewayCore } from "../server/gateway-core.js";
import type { DeltaFanout } from "./delta-fanout.js";
import { seedSessionHistory } from "./session-seed.js";
import type { RunInput, RunReply } from "./types.js";

export interface RunHandle {
  readonly runId: string;
  readonly sessionKey: string;
  /** Resolves when the run ends, in any way; never rejects. */
  readonly done: Promise<RunReply>;
  /** Aborts the run (it ends as `aborted`); a no-op once it ended. */
  abort(): void;
}

/**
 * Aborts `run` when the client goes away before its answer is complete, also when it went away while the run
 * was being prepared (the response's `close` has then already fired).
 */
export function abortOnDisconnect(res: ServerResponse, run: RunHandle): void {
  const gone = (): boolean => !res.writableFinished;
  if (res.closed || res.destroyed) {
    if (gone()) run.abort();
    return;
  }
  res.once("close", () => {
    if (gone()) run.abort();
  });
}

/** A fresh run id for an HTTP request (also the idempotency key of its run). */
export function newRunId(): string {
  return `http-${randomUUID()}`;
}

/** The reply text of an outcome: the shaped payloads a client would print, error notes left out. */
function replyText(o: RunOutcome): string {
  return o.result.payloads
    .filter((p) => !p.isError && p.text)
    .map((p) => p.text)
    .join("\n\n");
}

function toReply(runId: string, sessionKey: string, o: RunOutcome): RunReply {
  const u = o.result.meta.agentMeta.usage;
  const { provider, model } = o.result.meta.agentMeta;
  return {
    runId,
    sessionKey,
    status: o.status,
    text: replyText(o),
    error: o.error,
    usage: { input: u?.input ?? 0, output: u?.output ?? 0, total: u?.total ?? (u ? u.input + u.output : 0) },
    model: provider && model ? `${provider}/${model}` : model || "",
    stopReason: o.result.meta.stopReason,
  };
}

/**
 * Starts the run of `input`. `onDelta` gets each text delta of the reply, in order. A request merged into a
 * session's running turn (steer) streams that turn's deltas.
 */
export async function startRun(
  core: GatewayCore,
  fanout: DeltaFanout,
  input: RunInput,
  onDelta?: (delta: string) => void,
  runId: string = newRunId(),
): Promise<RunHandle> {
  const { sessionKey, agentId } = input;
  const acceptedAt = Date.now();
  const req: RunRequest = {
    runId,
    sessionKey,
    agentId,
    message: input.prompt,
    acceptedAt,
    model: input.model,
    extraSystemPrompt: input.extraSystemPrompt,
    source: "http",
    ...(input.images.length > 0 ? { images: input.images } : {}),
    ...(input.sampling ? { sampling: input.sampling } : {}),
  };
  if (input.stateless) seedSessionHistory(core, sessionKey, agentId, input.history);
  const command = await handleSlashCommand(core, sessionKey, agentId, input.prompt);
  if (command) {
    core.runs.accept(req);
    core.runs.finish(runId, command);
    if (onDelta) {
      const text = replyText(command);
      if (text) onDelta(text);
    }
    return { runId, sessionKey, done: Promise.resolve(toReply(runId, sessionKey, command)), abort: () => {} };
  }
  let unsubscribe = (): void => {};
  if (onDelta) {
    unsubscribe = fanout.listen(sessionKey, (eventRunId, delta) => {
      const followed = core.runs.get(runId)?.turn?.runId ?? runId;
      if (eventRunId === followed) onDelta(delta);
    });
  }
  let ended = false;
  const done = core.runs.whenDone(runId).then((o) => {
    ended = true;
    unsubscribe();
    return toReply(runId, sessionKey, o);
  });
  await core.submit(req);
  return {
    runId,
    sessionKey,
    done,
    abort: () => {
      if (!ended) void core.abortRuns(sessionKey, runId);
    },
  };
}
