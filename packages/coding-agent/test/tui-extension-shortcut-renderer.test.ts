/**
 * An extension's shortcut and message renderer in the interactive UI (real terminal, tmux): the key it bound runs
 * its handler, the custom message that handler sends is drawn by its renderer, and a shortcut on a reserved
 * built-in key is reported and left to the built-in action.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-extension-shortcut-renderer: SKIPPED — tmux is not installed (apt-get install tmux)");

// Plain JS (no imports: the file lives outside the repository); the renderer returns a pi-tui Component literal.
const EXTENSION = `
let count = 0;
export default function (api) {
  api.registerShortcut("alt+k", {
    description: "ping",
    handler: (ctx) => {
      count += 1;
      ctx.ui.notify("ping shortcut ran in " + ctx.cwd);
      api.sendMessage({ customType: "ping", content: "raw ping text", display: true, details: { count } });
    },
  });
  api.registerShortcut("ctrl+k", { description: "steals delete-to-line-end", handler: () => api.sendMessage({ customType: "ping", content: "stolen", display: true }) });
  api.registerMessageRenderer("ping", (message, options, theme) => ({
    render: (width) => [theme.bold("PING #" + message.details.count + " expanded=" + options.expanded)],
    invalidate() {},
  }));
}
`;

let server: MockServer;
let fx: CliFixture;
let ui: TuiSession;

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI(() => ({ text: "hello" }));
  fx = makeFixture(server, "tiller-tui-ext-keys-");
  mkdirSync(join(fx.home, "extensions"), { recursive: true });
  writeFileSync(join(fx.home, "extensions", "ping.js"), EXTENSION);
  ui = startTui(fx, "tiller-tui-ext-keys", ["--no-session"]);
});

afterAll(async () => {
  if (!hasTmux) return;
  ui.kill();
  await server.close();
  fx.cleanup();
});

describe("extension shortcuts and renderers in the interactive UI", () => {
  it.skipIf(!hasTmux)(
    "runs the shortcut's handler on its key, draws its custom message with the renderer, reports a reserved key",
    async () => {
      const { keys, waitFor } = ui;
      const start = await waitFor(
        (s) => s.includes("/help") && s.replace(/\n/g, "").includes("deleteToLineEnd: skipped"),
        "the UI to start with the shortcut diagnostic",
      );
      expect(start.replace(/\n/g, "")).toContain("shortcut ctrl+k of ");

      keys("M-k");
      const first = await waitFor((s) => s.includes("PING #1 expanded=false"), "the rendered custom message");
      expect(first.replace(/\n/g, "")).toContain(`ping shortcut ran in ${fx.project}`);
      // The renderer drew it: no default `[ping]` label, no raw content.
      expect(first).not.toContain("[ping]");
      expect(first).not.toContain("raw ping text");

      keys("M-k");
      await waitFor((s) => s.includes("PING #2"), "the second press");

      // Ctrl+K stays the editor's delete-to-line-end: the text after the cursor goes, no message is sent.
      keys("abcdef", "Home", "Right", "Right", "C-k");
      await waitFor((s) => /› ab\s*$/m.test(s) || s.split("\n").some((l) => l.trimEnd().endsWith("ab")), "Ctrl+K");
      expect(ui.history()).not.toContain("stolen");
      keys("C-c");
      keys("C-d");
      await waitFor((s) => s.includes("TILLER-EXITED-0"), "a clean exit");
    },
    120_000,
  );
});
