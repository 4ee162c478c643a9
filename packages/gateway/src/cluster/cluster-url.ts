/**
 * Where the cluster's database is: `TILLER_CLUSTER_URL`, else `gateway.cluster.postgres` in tiller.json.
 * Neither set means single-node (SQLite + JSONL), exactly as before. A value that is not a PostgreSQL URL is
 * an error naming where it came from, at start-up rather than at the first query. The composition root reads
 * this once (not wired yet: see the README's "Cluster (preview)").
 */

/** The URL to use, or undefined for single-node. `config` is the parsed tiller.json (any shape). */
export function resolveClusterUrl(config: unknown, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env.TILLER_CLUSTER_URL?.trim();
  if (fromEnv) return checkUrl(fromEnv, "TILLER_CLUSTER_URL");
  const gateway = isObject(config) ? config.gateway : undefined;
  const cluster = isObject(gateway) ? gateway.cluster : undefined;
  if (cluster === undefined || cluster === null) return undefined;
  if (!isObject(cluster))
    throw new Error(`tiller.json: gateway.cluster: expected an object, got ${JSON.stringify(cluster)}`);
  const url = cluster.postgres;
  if (url === undefined || url === null || url === "") return undefined;
  if (typeof url !== "string") {
    throw new Error(`tiller.json: gateway.cluster.postgres: expected a postgres:// URL, got ${JSON.stringify(url)}`);
  }
  return checkUrl(url, "tiller.json: gateway.cluster.postgres");
}

function checkUrl(url: string, where: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`${where}: not a URL: ${redact(url)}`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new Error(`${where}: expected a postgres:// or postgresql:// URL, got ${parsed.protocol}//…`);
  }
  return url;
}

/** Error messages never repeat a password. */
function redact(url: string): string {
  return url.replace(/\/\/([^:/@]*):[^@/]*@/, "//$1:***@");
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
