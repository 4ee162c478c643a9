/**
 * The interactive UI driven in a real terminal (tmux): type a prompt, watch the reply stream, steer mid-run,
 * abort with Esc, and check the raw output never clears the screen or the scrollback.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-interactive: SKIPPED — tmux is not installed (apt-get install tmux)");

let server: MockServer;
let fx: CliFixture;
let ui: TuiSession;

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI((body) => {
    const user = lastUserText(body);
    const words = user.includes("long") ? 120 : 40;
    return { text: `Reply to "${user}": ${"word ".repeat(words)}END`, chunkDelayMs: 40, chunkSize: 6 };
  });
  fx = makeFixture(server, "tiller-tui-");
  ui = startTui(fx, "tiller-tui", ["--no-session"]);
});

afterAll(async () => {
  if (!hasTmux) return;
  ui.kill();
  await server.close();
  fx.cleanup();
});

describe("interactive terminal UI", () => {
  it.skipIf(!hasTmux)(
    "streams a reply, steers mid-run, aborts on Esc, queues a follow-up, switches model, keeps the scrollback",
    async () => {
      const { keys, waitFor, screen, history } = ui;
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
      // No stale copies of the live region (status line, header) were pushed into the scrollback.
      expect(all.split("tiller 0.1.0").length - 1).toBe(1);
      expect((all.match(/Enter send · \/help commands/g) ?? []).length).toBe(1);
      const raw = readFileSync(ui.rawLog, "latin1");
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
