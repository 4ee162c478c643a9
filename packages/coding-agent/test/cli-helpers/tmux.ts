/** Runs the real CLI inside a detached tmux session and reads the screen back (capture-pane). */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CliFixture } from "./fixture.js";
import { CLI_COMMAND } from "./spawn-cli.js";

export const hasTmux = spawnSync("tmux", ["-V"]).status === 0;

export interface TuiSession {
  /** File receiving every byte the CLI wrote to the terminal. */
  rawLog: string;
  /** The tmux target (session name), for commands such as paste-buffer. */
  target: string;
  screen(): string;
  /** Screen plus up to 500 lines of scrollback. */
  history(): string;
  keys(...keys: string[]): void;
  waitFor(pred: (text: string) => boolean, what: string, read?: () => string, timeoutMs?: number): Promise<string>;
  kill(): void;
}

/**
 * Starts `tiller <args>` in a 100x30 tmux pane, in the fixture's project folder with its environment
 * (`command`: another program to run there instead of the CLI, e.g. an SDK script).
 */
export function startTui(fx: CliFixture, name: string, args: string[], command = CLI_COMMAND): TuiSession {
  const session = `${name}-${process.pid}`;
  const rawLog = join(fx.root, `${name}.raw.log`);
  const script = join(fx.root, `${name}.sh`);
  const env = Object.entries(fx.env)
    .map(([k, v]) => `export ${k}='${v ?? ""}'`)
    .join("\n");
  const argv = [...command, ...args].map((a) => `'${a}'`).join(" ");
  writeFileSync(script, `#!/bin/sh\n${env}\ncd '${fx.project}'\nexec ${argv}\n`);
  chmodSync(script, 0o755);
  const tmux = (...a: string[]) => execFileSync("tmux", a, { encoding: "utf8" });
  tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "30", `${script}; echo TILLER-EXITED-$?; sleep 60`);
  tmux("pipe-pane", "-t", session, "-o", `cat >> '${rawLog}'`);
  const screen = () => tmux("capture-pane", "-p", "-t", session);
  return {
    rawLog,
    target: session,
    screen,
    history: () => tmux("capture-pane", "-p", "-S", "-500", "-t", session),
    keys: (...k) => void tmux("send-keys", "-t", session, ...k),
    waitFor: async (pred, what, read = screen, timeoutMs = 45_000) => {
      const deadline = Date.now() + timeoutMs;
      let last = "";
      while (Date.now() < deadline) {
        last = read();
        if (pred(last)) return last;
        await new Promise((r) => setTimeout(r, 150));
      }
      throw new Error(`timed out waiting for ${what}; screen:\n${last}`);
    },
    kill: () => void spawnSync("tmux", ["kill-session", "-t", session]),
  };
}
