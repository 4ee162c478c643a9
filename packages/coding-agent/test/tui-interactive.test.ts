/**
 * The interactive UI driven in a real terminal (tmux): type a prompt, watch the reply stream, steer mid-run,
 * abort with Esc, and check the raw output never clears the screen or the scrollback.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { CLI_COMMAND } from "./cli-helpers/spawn-cli.js";

const hasTmux = spawnSync("tmux", ["-V"]).status === 0;
if (!hasTmux) console.warn("tui-interactive: SKIPPED — tmux is not installed (apt-get install tmux)");

const SESSION = `tiller-tui-${process.pid}`;
let server: MockServer;
let fx: CliFixture;
let rawLog: string;

const tmux = (...args: string[]) => execFileSync("tmux", args, { encoding: "utf8" });
const screen = () => tmux("capture-pane", "-p", "-t", SESSION);
/** Visible screen plus scrollback. */
const history = () => tmux("capture-pane", "-p", "-S", "-500", "-t", SESSION);
const keys = (...k: string[]) => tmux("send-keys", "-t", SESSION, ...k);

async function waitFor(
  pred: (text: string) => boolean,
  what: string,
  read = screen,
  timeoutMs = 45_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    last = read();
    if (pred(last)) return last;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${last}`);
}

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI((body) => {
    const user = lastUserText(body);
    const words = user.includes("long") ? 120 : 40;
    return { text: `Reply to "${user}": ${"word ".repeat(words)}END`, chunkDelayMs: 40, chunkSize: 6 };
  });
  fx = makeFixture(server, "tiller-tui-");
  rawLog = join(fx.root, "raw.log");
  const script = join(fx.root, "run.sh");
  const env = Object.entries(fx.env)
    .map(([k, v]) => `export ${k}='${v ?? ""}'`)
    .join("\n");
  writeFileSync(
    script,
    `#!/bin/sh\n${env}\ncd '${fx.project}'\nexec ${CLI_COMMAND.map((a) => `'${a}'`).join(" ")} --no-session\n`,
  );
  chmodSync(script, 0o755);
  tmux("new-session", "-d", "-s", SESSION, "-x", "100", "-y", "30", `${script}; echo TILLER-EXITED-$?; sleep 60`);
  tmux("pipe-pane", "-t", SESSION, "-o", `cat >> '${rawLog}'`);
});

afterAll(async () => {
  if (!hasTmux) return;
  spawnSync("tmux", ["kill-session", "-t", SESSION]);
  await server.close();
  fx.cleanup();
});

describe("interactive terminal UI", () => {
  it.skipIf(!hasTmux)(
    "streams a reply, steers mid-run, aborts on Esc, queues a follow-up, switches model, keeps the scrollback",
    async () => {
      await waitFor((s) => s.includes("tiller 0.1.0") && s.includes("mock/mock-1"), "the UI to start");

      keys("first question");
      keys("Enter");
      // Streaming: part of the reply is on screen while the agent is still working.
      const mid = await waitFor((s) => s.includes('Reply to "first question"') && s.includes("working"), "streaming");
      expect(mid).toContain("you › first question");
      expect(mid).not.toContain("END");

      // Enter while the agent works = steer; it is delivered once the current turn ends.
      keys("steer now");
      keys("Enter");
      await waitFor((s) => s.includes("steering: steer now"), "the steer notice");
      await waitFor(
        (s) => s.includes('Reply to "steer now"') && s.includes("END") && !s.includes("working"),
        "steered reply",
      );
      expect(server.requests.some((r) => lastUserText(r) === "steer now")).toBe(true);
      const steered = server.requests.find((r) => lastUserText(r) === "steer now")!;
      // The steering message joined the same conversation, after the first exchange.
      expect(JSON.stringify(steered.messages)).toContain("first question");

      // Esc aborts a running reply.
      keys("a long answer please");
      keys("Enter");
      await waitFor((s) => s.includes('Reply to "a long answer please"') && s.includes("working"), "long reply");
      keys("Escape");
      const aborted = await waitFor((s) => s.includes("aborted") && s.includes("Enter send"), "abort");
      expect(aborted).not.toMatch(/a long answer please": (word )+END/);

      // Alt+Enter while the agent works = follow-up, delivered when it would stop.
      keys("second question");
      keys("Enter");
      await waitFor((s) => s.includes('Reply to "second question"') && s.includes("working"), "second reply");
      keys("and a follow-up");
      keys("M-Enter");
      await waitFor((s) => s.includes("follow-up queued: and a follow-up"), "follow-up notice");
      await waitFor(
        (s) => s.includes('Reply to "and a follow-up"') && s.includes("END") && !s.includes("working"),
        "follow-up reply",
      );

      // /model opens a picker on the current model; arrows move, Enter chooses.
      keys("/model");
      keys("Enter");
      const picker = await waitFor(
        (s) => s.includes("Esc cancel") && s.includes("offline/tiller-offline"),
        "model picker",
      );
      expect(picker).toMatch(/→ mock\/mock-1/);
      keys("Up");
      keys("Enter");
      await waitFor((s) => s.includes("model: offline/tiller-offline · thinking"), "model switched");
      await waitFor((s) => s.includes(" offline/tiller-offline · thinking off"), "status line updated");

      // Nothing was lost from the scrollback, and the renderer never cleared screen or scrollback.
      const all = history();
      expect(all).toContain("you › first question");
      expect(all).toContain('Reply to "first question"');
      const raw = readFileSync(rawLog, "latin1");
      expect(raw).not.toContain("\x1b[3J");
      expect(raw).not.toContain("\x1b[2J");
      expect(raw).toContain("\x1b[?2026h"); // frames are synchronized updates

      // Ctrl+D on an empty editor quits cleanly.
      keys("C-d");
      await waitFor((s) => s.includes("TILLER-EXITED-0"), "a clean exit", screen, 20_000);
    },
    120_000,
  );
});
