/**
 * Product gateway processes on one PostgreSQL: each spawned like `tiller-gateway` (own TILLER_HOME, real
 * WebSocket clients) with `gateway.cluster.postgres` in its tiller.json, all on one loopback mock provider.
 */
import pg from "pg";
import type { MockServer } from "../../../ai/test/helpers/mock-server.js";
import type { GatewayClient } from "../../src/cli/gateway-client.js";
import type { EventFrame } from "../../src/protocol/frames.js";
import {
  connectClient,
  type GatewayProc,
  makeHome,
  removeHome,
  spawnGateway,
  startMockProvider,
} from "../gateway-harness.js";
import { startPostgres, type TestPostgres } from "./postgres.js";

export interface ClusterGatewayNode {
  name: string;
  home: string;
  gw: GatewayProc;
  client: GatewayClient;
  events: EventFrame[];
}

/** A home of one cluster gateway; `gateway` adds to its gateway section, `config` replaces other sections. */
export function clusterHome(
  url: string,
  mock: MockServer,
  name: string,
  config: Record<string, unknown> = {},
  gateway: Record<string, unknown> = {},
): string {
  return makeHome({
    mockBaseUrl: mock.baseUrl,
    config: {
      gateway: { cluster: { postgres: url, nodeId: name }, ...gateway },
      agents: { defaults: { maxConcurrent: 4 } },
      messages: { queue: { mode: "followup" } },
      ...config,
    },
  });
}

/** Starts (or restarts, on `home`) one gateway of the cluster and connects an operator client (`scopes`) to it. */
export async function startNode(
  name: string,
  home: string,
  scopes: string[] = ["operator.admin"],
): Promise<ClusterGatewayNode> {
  const gw = await spawnGateway(home);
  const { client, events } = await connectClient(gw.url, { scopes });
  return { name, home, gw, client, events };
}

export async function stopNodes(nodes: ClusterGatewayNode[]): Promise<void> {
  await Promise.all(
    nodes.map(async (n) => {
      await n.client.close().catch(() => {});
      await n.gw.kill();
      removeHome(n.home);
    }),
  );
}

/** One test file's cluster: its own PostgreSQL and database, the mock provider, the gateways, an operator's client. */
export interface ClusterSuite {
  pgs: TestPostgres;
  url: string;
  mock: MockServer;
  nodes: ClusterGatewayNode[];
  db: pg.Client;
  /** Stops what started. */
  stop(): Promise<void>;
}

/**
 * Starts a cluster of `names` gateways (homes from `clusterHome`, `gateway` added to each gateway section) on a
 * fresh database of a throw-away PostgreSQL; a part that fails to start stops the parts started before it.
 */
export async function startClusterSuite(names: string[], gateway: Record<string, unknown> = {}): Promise<ClusterSuite> {
  const started: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const s of started.splice(0).reverse()) await s().catch(() => {});
  };
  try {
    const pgs = await startPostgres();
    started.push(() => pgs.stop());
    const url = await pgs.createDatabase();
    const mock = await startMockProvider();
    started.push(() => mock.close());
    const nodes: ClusterGatewayNode[] = [];
    started.push(() => stopNodes(nodes));
    // In `names` order; each one stored as it starts, so a failed start still stops the others.
    await Promise.all(
      names.map(async (n, i) => {
        nodes[i] = await startNode(n, clusterHome(url, mock, n, {}, gateway));
      }),
    );
    const db = await dbClient(url);
    started.push(() => db.end());
    return { pgs, url, mock, nodes, db, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A plain client of the cluster's database, for reading the ledger and transcripts the way an operator would. */
export async function dbClient(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

export interface LedgerRow {
  run_id: string;
  session_key: string;
  session_pos: string;
  status: string;
  node_id: string | null;
  started_at: string | null;
  ended_at: string | null;
  error: string | null;
}

export async function ledger(db: pg.Client): Promise<LedgerRow[]> {
  const { rows } = await db.query<LedgerRow>(
    "SELECT run_id, session_key, session_pos, status, node_id, started_at, ended_at, error FROM cluster_runs ORDER BY session_key, session_pos",
  );
  return rows;
}

/** User texts of a recorded model request, in order. */
export function userTexts(body: unknown): string[] {
  const messages = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []) as {
    role: string;
    content: unknown;
  }[];
  return messages
    .filter((m) => m.role === "user")
    .map((m) =>
      typeof m.content === "string" ? m.content : (m.content as { text?: string }[]).map((c) => c.text ?? "").join(""),
    );
}
