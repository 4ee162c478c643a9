// Child process for session-lock.test.ts: opens a session for writing, appends, reports, then waits.
import { SessionManager } from "../src/index.js";

const [file, mode] = process.argv.slice(2) as [string, string];
try {
  const sm = SessionManager.open(file);
  sm.appendCustomEntry("child", { pid: process.pid });
  process.stdout.write(`opened ${process.pid}\n`);
  if (mode === "exit") {
    sm.close();
    process.exit(0);
  }
  setInterval(() => {}, 1000);
} catch (err) {
  process.stdout.write(`error ${(err as Error).message}\n`);
  process.exit(3);
}
