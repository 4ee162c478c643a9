/**
 * Which view of a run's text a connection gets (`TextView`, defined in the protocol schema), chosen once at
 * `connect` from what the client announced. The rule follows what each client's code reads, so every client
 * renders what it did while a run's bytes stay linear in its reply (see README "What each client gets and why"):
 *
 * - `tiller.delta-only` (Tiller's own clients: the web page, `tiller agent`, the MCP link) rebuild the text from
 *   every burst of deltas.
 * - Protocol 3 predates v4's `deltaText`: such a client may render the cumulative snapshots, so it keeps them all.
 * - Client id `cli` is the reference CLI (`openclaw agent`, `openclaw gateway call`): it prints the `agent`
 *   answer and reads no event, so the text goes to it once as deltas and once in that answer.
 * - Every other v4 client gets the reference's chat view: the reference TUI renders chat deltas' cumulative
 *   `message`, its control UI `deltaText` (or `message`); neither reads the `assistant` stream's `text`.
 */
import type { TextView } from "../protocol/schema/events.js";

/** Client capability: every burst of text as deltas, no chat deltas (the `deltas` view). */
export const CAP_DELTA_ONLY = "tiller.delta-only";

/** The reference CLI's client id (`GATEWAY_CLIENT_IDS.CLI` in OpenClaw). */
const REFERENCE_CLI_ID = "cli";

export function textViewOf(client: { protocol: number; clientId: string; caps: ReadonlySet<string> }): TextView {
  if (client.caps.has(CAP_DELTA_ONLY)) return "deltas";
  if (client.protocol < 4) return "snapshots";
  if (client.clientId === REFERENCE_CLI_ID) return "answer";
  return "chat";
}

/**
 * Whether a connection of `view` reads the cumulative copies of the text (chat deltas' `message`, and in the
 * `snapshots` view the `assistant` events' `text`): a run builds them only while such a connection follows it.
 */
export function viewReadsText(view: TextView): boolean {
  return view === "chat" || view === "snapshots";
}
