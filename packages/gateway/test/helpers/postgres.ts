/**
 * A throw-away PostgreSQL server for one test file: `initdb` into a temp folder, `pg_ctl start` on a free
 * loopback port with its socket in that folder, one database per `createDatabase()`. `stop()` (or the process
 * exiting) stops the server with `-m immediate` and removes the folder, so a failed test leaves nothing behind.
 * Many test files can each start their own server at once: nothing is shared but the binaries.
 *
 * PostgreSQL refuses to run as root, so under root the server runs as the `postgres` user (else `nobody`).
 */
import { type ChildProcess, execFile, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

/** Where Debian (and most distributions) put the server binaries; `PG_BIN` overrides. */
function findBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  for (const base of ["/usr/lib/postgresql", "/usr/local/lib/postgresql"]) {
    if (!existsSync(base)) continue;
    const versions = readdirSync(base)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(join(base, v, "bin"));
  }
  candidates.push("/usr/local/pgsql/bin", "/usr/bin");
  return candidates.find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl")));
}

export const PG_BIN = findBinDir();
/** Set when no PostgreSQL server binaries exist here: the cluster tests skip with this message. */
export const PG_MISSING = PG_BIN
  ? undefined
  : "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's `postgresql` or set PG_BIN";
if (PG_MISSING) console.warn(`[cluster tests skipped] ${PG_MISSING}`);

/** A free loopback TCP port (the OS picks one; PostgreSQL binds it a moment later). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

interface RunAs {
  uid: number;
  gid: number;
}

function runAsUser(): RunAs | undefined {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const r = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const g = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
  }
  throw new Error("running as root and neither a postgres nor a nobody user exists to run PostgreSQL");
}

function run(bin: string, args: string[], as: RunAs | undefined, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = execFile(
      join(PG_BIN as string, bin),
      args,
      { timeout: timeoutMs, ...(as ? { uid: as.uid, gid: as.gid } : {}), env: { ...process.env, LC_ALL: "C" } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`${bin} ${args.join(" ")} failed: ${err.message}\n${stdout}\n${stderr}`));
        else resolve(String(stdout));
      },
    );
    void child;
  });
}

export interface TestPostgres {
  /** Superuser URL of the `postgres` database. */
  readonly adminUrl: string;
  readonly port: number;
  readonly dir: string;
  /** Creates a fresh database and returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown: clients are cut off), keeping the data, for fault tests. */
  pause(): Promise<void>;
  /** Starts it again on the same port after `pause()`. */
  resume(): Promise<void>;
  /** Stops the server and removes everything. Idempotent. */
  stop(): Promise<void>;
}

const live = new Set<{ dir: string; data: string; as: RunAs | undefined }>();
process.once("exit", () => {
  // Last resort when a test process ends without stop(): kill the server and remove its folder.
  for (const s of live) {
    spawnSync(join(PG_BIN as string, "pg_ctl"), ["-D", s.data, "-m", "immediate", "-w", "stop"], {
      ...(s.as ? { uid: s.as.uid, gid: s.as.gid } : {}),
      stdio: "ignore",
    });
    rmSync(s.dir, { recursive: true, force: true });
  }
});

/** Starts a private PostgreSQL server. Throws when PG_MISSING is set (callers skip first). */
export async function startPostgres(): Promise<TestPostgres> {
  if (!PG_BIN) throw new Error(PG_MISSING);
  const as = runAsUser();
  const dir = mkdtempSync(join(tmpdir(), "tiller-pg-"));
  chmodSync(dir, 0o700);
  if (as) chownSync(dir, as.uid, as.gid);
  const data = join(dir, "data");
  const record = { dir, data, as };
  live.add(record);
  let port = await freePort();
  try {
    await run(
      "initdb",
      ["-D", data, "-A", "trust", "-U", "tiller", "-E", "UTF8", "--no-sync", "--no-instructions"],
      as,
    );
  } catch (err) {
    live.delete(record);
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  // fsync off: a throw-away server, and the tests run on a loaded machine.
  const opts = () =>
    [
      `-p ${port}`,
      `-k ${dir}`,
      "-c listen_addresses=127.0.0.1",
      "-c fsync=off",
      "-c synchronous_commit=off",
      "-c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
  const start = () =>
    run("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", opts(), "start"], as);
  const stopServer = (mode: string) => run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"], as);
  // Another process may take the free port between our probe and PostgreSQL's bind: try a few ports.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (err) {
      if (attempt >= 3) {
        live.delete(record);
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      port = await freePort();
    }
  }
  const adminUrl = `postgres://tiller@127.0.0.1:${port}/postgres`;
  let counter = 0;
  let stopped = false;
  return {
    adminUrl,
    port,
    dir,
    async createDatabase(name = `t${process.pid}_${++counter}`) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return `postgres://tiller@127.0.0.1:${port}/${name}`;
    },
    pause: () => stopServer("fast").then(() => undefined),
    resume: () => start().then(() => undefined),
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        await stopServer("immediate");
      } catch {
        // already stopped (a paused server): removing the folder is what matters
      }
      live.delete(record);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
