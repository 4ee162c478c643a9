/**
 * A resize in the middle of a streaming reply, in a real tmux pane (tmux re-wraps its own copy of the screen):
 * after narrowing and widening again every word of the reply is in the scrollback exactly once and in order, and
 * no stale copy of the live region (status line, editor) is left behind.
 */
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-resize: SKIPPED — tmux is not installed (apt-get install tmux)");

const WORDS = 260;
const reply = `${Array.from({ length: WORDS / 2 }, (_, i) => `w${i + 1}`).join(" ")}\n\n${Array.from(
  { length: WORDS / 2 },
  (_, i) => `w${WORDS / 2 + i + 1}`,
).join(" ")} END`;

let server: MockServer;
let fx: CliFixture;
let ui: TuiSession;

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI(() => ({ text: reply, chunkDelayMs: 30, chunkSize: 8 }));
  fx = makeFixture(server, "tiller-tui-resize-");
  ui = startTui(fx, "tiller-resize", ["--no-session"]);
});

afterAll(async () => {
  if (!hasTmux) return;
  ui.kill();
  await server.close();
  fx.cleanup();
});

const resize = (cols: number) => execFileSync("tmux", ["resize-window", "-t", ui.target, "-x", String(cols)]);

describe("resize while a reply streams (tmux)", () => {
  it.skipIf(!hasTmux)(
    "re-flows without lost, doubled or stale lines",
    async () => {
      const { keys, waitFor, history } = ui;
      await waitFor((s) => s.includes("Enter send"), "the UI to start");
      keys("go");
      keys("Enter");
      await waitFor((s) => /\bw40\b/.test(s) && s.includes("working"), "streaming");
      resize(57);
      await waitFor((s) => /\bw150\b/.test(s), "more streaming after narrowing");
      resize(100);
      await waitFor((s) => s.includes("END") && !s.includes("working"), "the end of the reply");
      const all = history();
      const order = [...all.matchAll(/\bw(\d+)\b/g)].map((m) => Number(m[1]));
      expect(order).toEqual(Array.from({ length: WORDS }, (_, i) => i + 1));
      expect((all.match(/Enter send · \/help commands/g) ?? []).length).toBe(1);
      expect(all.split("tiller 0.1.0").length - 1).toBe(1);
    },
    120_000,
  );
});
