/**
 * The composition root: one call builds the whole product gateway — configuration from `$TILLER_HOME`, the
 * model registry, plugins and gateway hooks, prompt assembly, the tool pipeline, reply shaping and failover —
 * and starts it listening. `tiller gateway`, `npm start` and embedding programs all start it this way.
 *
 *   const gateway = await startGateway({ home: "/tmp/demo-home", port: 0 });
 *   console.log(gateway.url);        // ws://127.0.0.1:<port>
 *   await gateway.close();           // plugins see gateway_stop, runs end as aborted, sockets close
 */

import { resolveClusterUrl } from "./cluster/cluster-url.js";
import { ClusterPlacement } from "./cluster/gateway-placement.js";
import type { TillerConfig } from "./config/config-types.js";
import { loadConfig, resolveTillerHome } from "./config/load-config.js";
import type { ModelRegistry } from "./config/models-config.js";
import { type MethodDef, methodTable } from "./methods/method-types.js";
import { loadGatewayShaping } from "./plugins/gateway-extensions.js";
import type { SessionFactory } from "./run/embedded-session.js";
import { GatewayServer } from "./server/gateway-server.js";
import { acquireHomeLock, type HomeLock } from "./store/home-lock.js";

export interface StartGatewayOptions {
  /** `$TILLER_HOME` (tiller.json, models.json, sessions/, plugins/…); default: `resolveTillerHome()`. */
  home?: string;
  /** A configuration to use instead of reading `<home>/tiller.json`. */
  config?: TillerConfig;
  /** Override gateway.port (0: a free port), gateway.bind and gateway.auth from the config. */
  port?: number;
  bind?: string;
  token?: string;
  password?: string;
  /** Diagnostics (plugin loading, provisional model failures); default: stderr. */
  log?: (line: string) => void;
  /** Methods served beside the built-in ones (a name already served replaces it). */
  methods?: readonly MethodDef[];
  /** The model registry; default: the catalog plus `<home>/models.json`. */
  models?: ModelRegistry;
  /** The engine of every run; default: the coding agent's AgentSession with the gateway's tool pipeline. */
  sessionFactory?: SessionFactory;
}

/** Builds and starts the product gateway; resolves once it listens. Close it with `close()`. */
export async function startGateway(options: StartGatewayOptions = {}): Promise<GatewayServer> {
  const config = options.config ?? loadConfig(options.home ?? resolveTillerHome());
  const log = options.log ?? ((line: string): void => void process.stderr.write(`${line}\n`));
  // Before anything reads the home: a second gateway on it refuses here, naming the first (pid, address).
  const homeLock = acquireHomeLock(config.home);
  if (homeLock.reclaimed) log(`home lock of a dead gateway reclaimed: ${homeLock.reclaimed.reason}`);
  try {
    const server = await startOnLockedHome(options, config, log, homeLock);
    homeLock.setAddress(server.url);
    return server;
  } catch (err) {
    homeLock.release();
    throw err;
  }
}

async function startOnLockedHome(
  options: StartGatewayOptions,
  config: TillerConfig,
  log: (line: string) => void,
  homeLock: HomeLock,
): Promise<GatewayServer> {
  // Plugins ($TILLER_HOME/plugins), gateway hooks ($TILLER_HOME/hooks), prompt assembly, tools, reply shaping.
  const shaping = await loadGatewayShaping({ config, log });
  // A cluster (gateway.cluster.postgres / TILLER_CLUSTER_URL): runs, ledger, transcripts in PostgreSQL.
  const clusterUrl = resolveClusterUrl(config.raw);
  const nodeId = (config.raw.gateway as { cluster?: { nodeId?: string } } | undefined)?.cluster?.nodeId;
  const cluster = clusterUrl ? await ClusterPlacement.start({ url: clusterUrl, config, log, nodeId }) : undefined;
  if (cluster) log(`cluster node ${cluster.nodeId} joined`);
  // The cluster's cooldowns are read before the first run, so a key another node saw rate-limited is skipped at once.
  const authProfiles = cluster?.authProfiles(config.home);
  await authProfiles?.refresh();
  const server = await GatewayServer.start({
    ...(cluster && authProfiles
      ? { placement: (core) => cluster.attach(core), bus: cluster.bus, authProfiles, approvals: cluster.approvals }
      : {}),
    onClosed: () => homeLock.release(),
    config,
    port: options.port,
    bind: options.bind,
    token: options.token,
    password: options.password,
    log,
    models: options.models,
    shaping,
    ...(options.sessionFactory ? { runner: { sessionFactory: options.sessionFactory } } : {}),
    ...(options.methods ? { methods: methodTable(options.methods) } : {}),
  }).catch(async (err: unknown) => {
    await cluster?.close(); // leaves the cluster at once (idempotent when the core's shutdown did already)
    throw err;
  });
  await shaping.gatewayStarted(server.port);
  return server;
}
