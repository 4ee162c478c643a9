/**
 * `tiller gateway sessions export <key…> | --all [--out FILE|DIR]`: a session's transcript as the JSONL v3 file
 * `SessionManager.open` reads. In a cluster (`gateway.cluster.postgres` / `TILLER_CLUSTER_URL`) it reads
 * PostgreSQL's entries table, the transcript's truth, so any node's home (or an operator's) exports what every
 * node served; single-node it copies the session's JSONL from $TILLER_HOME. It only reads: it needs no running
 * gateway and takes no home lock.
 */

import { createReadStream, existsSync } from "node:fs";
import { copyFile, mkdir, open, rename, stat } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { resolveClusterUrl } from "../cluster/cluster-url.js";
import { ClusterPool } from "../cluster/pool.js";
import { ClusterSessionIndex } from "../cluster/session-index.js";
import { ClusterTranscripts } from "../cluster/transcripts.js";
import { loadConfig, resolveTillerHome } from "../config/load-config.js";
import { normalizeSessionKey } from "../store/session-keys.js";
import { type SessionEntry, SessionStore } from "../store/session-store.js";
import { parseArgs, str, UsageError } from "./args.js";

export const SESSIONS_HELP = `  tiller gateway sessions export <key…> | --all [--out FILE|DIR]
      Write sessions' transcripts as JSONL v3 files (SessionManager opens them): from PostgreSQL in a cluster,
      from $TILLER_HOME/sessions otherwise. One key without --out goes to stdout; several keys or --all need
      --out DIR (one <sessionId>.jsonl each; "key<TAB>file" lines on stdout).`;

/** A session that cannot be exported (unknown key, no transcript yet): exit 1 with this message. */
class ExportError extends Error {}

/** Where transcripts come from: the cluster's tables or the home's index and files. */
interface TranscriptSource {
  get(key: string): Promise<SessionEntry | undefined>;
  list(limit: number, offset: number): Promise<SessionEntry[]>;
  /** Writes the session's JSONL to `file`, or to stdout without one. Throws ExportError when it has none. */
  write(entry: SessionEntry, file: string | undefined): Promise<void>;
  close(): Promise<void>;
}

/** `tiller gateway sessions …`; resolves with the exit code. Bad usage throws UsageError (exit 2). */
export async function sessionsCommand(argv: readonly string[]): Promise<number> {
  if (argv[0] !== "export") {
    throw new UsageError(argv[0] ? `unknown sessions command "${argv[0]}"` : "sessions: missing command (export)");
  }
  const args = parseArgs(argv.slice(1), { switches: ["all"], values: ["out"] });
  const all = args.flags.has("all");
  const out = str(args, "out");
  if (all && args.positional.length > 0) throw new UsageError("give session keys or --all, not both");
  if (!all && args.positional.length === 0) throw new UsageError("sessions export: missing <key> (or --all)");
  const many = all || args.positional.length > 1;
  if (many && out === undefined) throw new UsageError("several sessions need --out DIR");

  const home = resolveTillerHome();
  const config = loadConfig(home);
  const clusterUrl = resolveClusterUrl(config.raw);
  const source = clusterUrl ? clusterSource(clusterUrl) : localSource(home);
  try {
    const keys = args.positional.map((raw) => {
      if (!raw.trim()) throw new ExportError("an empty session key");
      return normalizeSessionKey(raw, config.agents.defaultId).key;
    });
    const dir = out !== undefined && (many || (await isDir(out))) ? out : undefined;
    if (dir !== undefined) await mkdir(dir, { recursive: true });
    const entries: SessionEntry[] = [];
    for (const key of keys) {
      const entry = await source.get(key);
      if (!entry) throw new ExportError(`no session "${key}"${clusterUrl ? " in the cluster" : ` in ${home}`}`);
      entries.push(entry);
    }
    const exportOne = async (entry: SessionEntry): Promise<void> => {
      if (dir === undefined) return source.write(entry, out);
      const file = join(dir, `${entry.sessionId}.jsonl`);
      await source.write(entry, file);
      process.stdout.write(`${entry.key}\t${file}\n`);
    };
    if (!all) {
      for (const entry of entries) await exportOne(entry);
      return 0;
    }
    for (let offset = 0; ; offset += 100) {
      const page = await source.list(100, offset);
      for (const entry of page) {
        try {
          await exportOne(entry);
        } catch (err) {
          // --all: a session without a transcript yet (created, never ran) is skipped, not an error.
          if (!(err instanceof ExportError)) throw err;
          process.stderr.write(`skipped ${entry.key}: ${err.message}\n`);
        }
      }
      if (page.length < 100) return 0;
    }
  } catch (err) {
    if (!(err instanceof ExportError)) throw err;
    process.stderr.write(`tiller gateway sessions export: ${err.message}\n`);
    return 1;
  } finally {
    await source.close();
  }
}

async function isDir(path: string): Promise<boolean> {
  if (path.endsWith("/")) return true;
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

function clusterSource(url: string): TranscriptSource {
  // One connection, a short retry: an operator's command should say the database is away, not wait 30 s.
  const pool = new ClusterPool({ url, max: 1, retryForMs: 5000, applicationName: "tiller-sessions-export" });
  const index = new ClusterSessionIndex(pool);
  const transcripts = new ClusterTranscripts(pool);
  return {
    get: (key) => index.get(key),
    list: (limit, offset) => index.list(limit, offset),
    async write(entry, file) {
      const header = await transcripts.header(entry.sessionId);
      if (!header) throw new ExportError(`session "${entry.key}" has no transcript yet`);
      if (file !== undefined) {
        await transcripts.exportJsonl(entry.sessionId, file);
        return;
      }
      await writeStdout(`${JSON.stringify(header)}\n`);
      for await (const page of transcripts.entries(entry.sessionId)) {
        await writeStdout(page.map((e) => `${JSON.stringify(e)}\n`).join(""));
      }
    },
    close: () => pool.close(),
  };
}

function localSource(home: string): TranscriptSource {
  // Opening the index creates it; a home without one has no sessions to export.
  const store = existsSync(join(home, "sessions", "index.sqlite")) ? new SessionStore(home) : undefined;
  return {
    get: async (key) => store?.get(key),
    list: async (limit, offset) => store?.list(limit, offset) ?? [],
    async write(entry, file) {
      if (!entry.sessionFile || !existsSync(entry.sessionFile)) {
        throw new ExportError(`session "${entry.key}" has no transcript yet`);
      }
      if (file === undefined) {
        await pipeline(createReadStream(entry.sessionFile), process.stdout, { end: false });
        return;
      }
      // Via a temp file and rename, mode 0600: a reader never sees half a file, a transcript is never world-readable.
      const tmp = `${file}.${process.pid}.tmp`;
      await copyFile(entry.sessionFile, tmp);
      const fh = await open(tmp, "r+");
      await fh.chmod(0o600);
      await fh.close();
      await rename(tmp, file);
    },
    close: async () => store?.close(),
  };
}

function writeStdout(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (err) => (err ? reject(err) : resolve()));
  });
}
