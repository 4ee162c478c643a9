// Child process for session-lock.test.ts: opens a session for writing and reports on stdout.
//   hold          append one entry, print "opened <pid>", then wait to be killed
//   exit          append one entry, print "opened <pid>", close and exit 0
//   stream N      print "opened <pid>", append N entries 2 ms apart, close, print "done", exit 0
// A refused open prints "error <message>" and exits 3.
import { SessionManager } from "../src/index.js";

const [file, mode, count] = process.argv.slice(2) as [string, string, string | undefined];
try {
  const sm = SessionManager.open(file);
  if (mode === "stream") {
    process.stdout.write(`opened ${process.pid}\n`);
    const n = Number(count);
    let i = 0;
    const step = (): void => {
      if (i < n) {
        sm.appendCustomEntry("child", { i: i++ });
        setTimeout(step, 2);
        return;
      }
      sm.close();
      process.stdout.write("done\n");
      process.exit(0);
    };
    step();
  } else {
    sm.appendCustomEntry("child", { pid: process.pid });
    process.stdout.write(`opened ${process.pid}\n`);
    if (mode === "exit") {
      sm.close();
      process.exit(0);
    }
    setInterval(() => {}, 1000);
  }
} catch (err) {
  process.stdout.write(`error ${(err as Error).message}\n`);
  process.exit(3);
}
