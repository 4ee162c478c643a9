/**
 * A loopback TCP proxy that a test can partition and heal, to put one cluster node behind a network partition
 * while the others keep talking to PostgreSQL. `cut()` is a silent partition, as a real one is: nothing is
 * refused or reset, bytes just stop flowing both ways (existing connections stall, new ones are accepted and
 * held). `restore()` lets everything flow again, stalled bytes first.
 */
import { createConnection, createServer, type Server, type Socket } from "node:net";

export interface TcpProxy {
  readonly port: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream?: Socket;
}

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let open = true;
  const connect = (p: Pair): void => {
    const upstream = createConnection({ host: "127.0.0.1", port: targetPort });
    p.upstream = upstream;
    upstream.on("error", () => drop(p)).on("close", () => drop(p));
    flow(p);
  };
  const flow = (p: Pair): void => {
    if (!p.upstream) {
      connect(p);
      return;
    }
    p.client.pipe(p.upstream);
    p.upstream.pipe(p.client);
  };
  const stall = (p: Pair): void => {
    p.client.unpipe();
    p.upstream?.unpipe();
    p.client.pause();
    p.upstream?.pause();
  };
  const drop = (p: Pair): void => {
    p.client.destroy();
    p.upstream?.destroy();
    pairs.delete(p);
  };
  const server: Server = createServer((client) => {
    const p: Pair = { client };
    pairs.add(p);
    client.on("error", () => drop(p)).on("close", () => drop(p));
    if (open) connect(p);
    else client.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return {
    port,
    cut() {
      open = false;
      for (const p of pairs) stall(p);
    },
    restore() {
      open = true;
      for (const p of pairs) flow(p);
    },
    close: () =>
      new Promise<void>((resolve) => {
        open = false;
        for (const p of [...pairs]) drop(p);
        server.close(() => resolve());
      }),
  };
}
