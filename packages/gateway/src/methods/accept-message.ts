/**
 * The path `agent` and `chat.send` share once their params are read: the connection follows the session, a
 * gateway command is answered by the gateway (no model call) and anything else becomes a run on the session
 * queue; the first answer goes out before any event of the run can (the reference's order: a client learns the
 * run from it), and the end is answered on the same request id.
 */
import type { RunOutcome, RunRequest } from "../run/run-types.js";
import type { Connection } from "../server/connection.js";
import type { GatewayCore } from "../server/gateway-core.js";
import { handleSlashCommand } from "./commands.js";

export interface AcceptMessageOptions {
  /** The first answer ({status:"accepted"} or {status:"started"}). */
  ack(): void;
  /** The answer when the run (or command) has ended. */
  end(outcome: RunOutcome): void;
  /** Called after the run is queued (e.g. to label the session). */
  afterSubmit?(): void;
}

export async function acceptMessage(
  core: GatewayCore,
  conn: Connection,
  req: RunRequest,
  o: AcceptMessageOptions,
): Promise<void> {
  conn.subscribe(req.sessionKey);
  const command = await handleSlashCommand(core, req.sessionKey, req.agentId, req.message, conn.scopes);
  if (command) {
    o.ack();
    core.finishCommand(req, command);
  } else {
    // The placement acks once the request is durably accepted (a cluster: committed) and before its events.
    await core.submit(req, () => o.ack());
    o.afterSubmit?.();
  }
  void core.runs.whenDone(req.runId).then(o.end);
}
