/**
 * A loopback server in its own process that answers every request with one pre-encoded SSE body, so a
 * benchmark's CPU time measures only the client. Started by `startSseFileServer(body)`.
 */
import { fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockServer } from "./mock-server.js";

export interface SseFileServer {
  url: string;
  close(): Promise<void>;
}

export async function startSseFileServer(body: string): Promise<SseFileServer> {
  const dir = mkdtempSync(join(tmpdir(), "tiller-sse-"));
  const file = join(dir, "body.sse");
  writeFileSync(file, body);
  const child = fork(fileURLToPath(import.meta.url), [file], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (m) => resolve(String(m)));
    child.once("exit", (code) => reject(new Error(`sse server exited with ${code}`)));
  });
  return {
    url,
    close: async () => {
      child.kill();
      await new Promise((r) => child.once("exit", r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Child side: serve the file given on the command line.
if (process.send && process.argv[2]) {
  const sse = readFileSync(process.argv[2], "utf8");
  const server = await startMockServer(() => ({ sse }));
  process.send(server.url);
  process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
}
