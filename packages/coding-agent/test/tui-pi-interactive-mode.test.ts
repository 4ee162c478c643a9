/**
 * pi's `InteractiveMode` on Tiller's terminal UI, driven in a real terminal (tmux): a program builds an SDK
 * runtime and runs `new InteractiveMode(runtime, { initialMessage }).run()`; the initial message is answered
 * (offline model), a line is taken by `getUserInput()` instead of the agent, a typed prompt is answered, a key remapped in keybindings.json works, Ctrl+D quits, `run()` resolves and the session file holds both
 * turns.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { REPO_ROOT } from "./cli-helpers/spawn-cli.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-pi-interactive-mode: SKIPPED — tmux is not installed (apt-get install tmux)");

const CHILD = join(REPO_ROOT, "packages", "coding-agent", "test", "interactive-mode-child.ts");
const TSX = pathToFileURL(join(REPO_ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;

let fx: CliFixture;
let ui: TuiSession;

beforeAll(() => {
  if (!hasTmux) return;
  fx = makeFixture(undefined, "tiller-pi-mode-");
  // The agent directory's keybindings.json moves "expand tool output" from Ctrl+O to Ctrl+X.
  writeFileSync(join(fx.home, "keybindings.json"), JSON.stringify({ "app.tools.expand": "ctrl+x" }));
  ui = startTui(
    fx,
    "tiller-pi-mode",
    ["hello from pi"],
    [process.execPath, "--conditions=tiller-source", "--import", TSX, CHILD],
  );
});

afterAll(() => {
  if (!hasTmux) return;
  ui.kill();
  fx.cleanup();
});

describe("InteractiveMode (pi's SDK entry to the terminal UI)", () => {
  it.skipIf(!hasTmux)(
    "answers the initial message and a typed prompt, then quits on Ctrl+D with the session saved",
    async () => {
      const { keys, waitFor } = ui;
      const first = await waitFor(
        (s) => s.includes("you › hello from pi") && s.includes("[offline model]") && s.includes("Enter send"),
        "the initial message answered",
      );
      expect(first).toContain("offline/tiller-offline");
      // The options' warning is shown.
      expect(first).toContain("fallback notice from the options");

      expect(first).toContain("warned by the program before run()");

      // getUserInput(): the next line goes to the program, which shows it back as an error; the agent gets nothing.
      keys("keep this one");
      keys("Enter");
      const captured = await waitFor((s) => s.includes("the program captured: keep this one"), "getUserInput");
      expect((captured.match(/\[offline model\]/g) ?? []).length).toBe(1);

      keys("what next");
      keys("Enter");
      await waitFor(
        (s) =>
          s.includes("you › what next") &&
          (s.match(/\[offline model\]/g) ?? []).length >= 2 &&
          s.includes("Enter send"),
        "the typed prompt answered",
      );

      // The remapped action answers its new key, and says so.
      keys("C-x");
      await waitFor((s) => s.includes("tool output expanded (ctrl+x collapses)"), "the remapped key");

      keys("C-d");
      const ended = await waitFor((s) => s.includes("TILLER-EXITED-0"), "run() to resolve and the program to exit");
      // The path may wrap across screen lines.
      const m = /MODE-ENDED session=(\S+?\.jsonl)/.exec(ended.replace(/\n/g, ""));
      expect(m).not.toBeNull();
      const file = m![1]!;
      expect(file).not.toBe("none");
      const stored = readFileSync(file, "utf8");
      expect(stored).toContain("hello from pi");
      expect(stored).toContain("what next");
      expect(stored).not.toContain("keep this one");
    },
    120_000,
  );
});
