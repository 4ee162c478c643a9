/**
 * The connection `tiller mcp serve` keeps to a running gateway: one WebSocket client (operator.write, delta-only
 * assistant events), with the `agent` events of each run routed to whoever started it.
 */
import { GatewayClient } from "../cli/gateway-client.js";
import type { EventFrame } from "../protocol/frames.js";
import { CAP_DELTA_ONLY } from "../server/connection.js";

/** An `agent` event of one run, as the gateway sends it. */
export interface RunEvent {
  stream: string;
  data: Record<string, unknown>;
}

export class GatewayLink {
  private readonly listeners = new Map<string, (e: RunEvent) => void>();

  private constructor(readonly client: GatewayClient) {}

  static async connect(url: string, token: string | undefined): Promise<GatewayLink> {
    let link: GatewayLink | undefined;
    const client = await GatewayClient.connect(url, {
      ...(token ? { token } : {}),
      scopes: ["operator.write"],
      caps: [CAP_DELTA_ONLY],
      onEvent: (frame) => link?.dispatch(frame),
    });
    link = new GatewayLink(client);
    return link;
  }

  private dispatch(frame: EventFrame): void {
    if (frame.event !== "agent") return;
    const p = frame.payload as { runId?: string; stream?: string; data?: Record<string, unknown> };
    if (!p.runId || !p.stream) return;
    this.listeners.get(p.runId)?.({ stream: p.stream, data: p.data ?? {} });
  }

  /** Routes the events of `runId` to `listener` until the returned function is called. */
  onRun(runId: string, listener: (e: RunEvent) => void): () => void {
    this.listeners.set(runId, listener);
    return () => this.listeners.delete(runId);
  }

  request(method: string, params: unknown, opts: { expectFinal?: boolean; timeoutMs?: number } = {}): Promise<unknown> {
    return this.client.request(method, params, opts);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
