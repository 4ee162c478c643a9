/**
 * Events as JSON lines for `--mode json` and `--mode rpc`. `message_update` drops the partial message the agent
 * attaches to every delta: re-serialising the whole growing message per delta would make the output quadratic in
 * the reply length. Each update carries the delta; `message_end` carries the complete message.
 */
import type { TillerSessionEvent } from "../agent-session/events.js";

export function eventForWire(event: TillerSessionEvent): unknown {
  if (event.type !== "message_update") return event;
  const { partial: _partial, ...delta } = event.assistantMessageEvent as { partial?: unknown } & Record<
    string,
    unknown
  >;
  // `done`/`error` events carry the final message under `message`/`error`: keep those, they are sent once.
  return { type: "message_update", role: (event.message as { role?: string }).role, assistantMessageEvent: delta };
}
