/**
 * Session commands and the editor of the interactive UI in tmux: /tree moves back to an earlier point, ↑ recalls
 * the last prompt, Ctrl+J makes a multi-line prompt, /new starts afresh.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-session-commands: SKIPPED — tmux is not installed (apt-get install tmux)");

let server: MockServer;
let fx: CliFixture;
let ui: TuiSession;

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI((body) => ({ text: `ok:${lastUserText(body)}` }));
  fx = makeFixture(server, "tiller-tui-tree-");
  ui = startTui(fx, "tiller-tree", []);
});

afterAll(async () => {
  if (!hasTmux) return;
  ui.kill();
  await server.close();
  fx.cleanup();
});

/** Text between the editor's two horizontal borders (the last two lines made of "─"). */
function editorText(screen: string): string {
  const lines = screen.split("\n");
  const borders = lines.flatMap((l, i) => (/^─{10,}/.test(l) ? [i] : []));
  if (borders.length < 2) return "";
  const [top, bottom] = borders.slice(-2) as [number, number];
  return lines
    .slice(top + 1, bottom)
    .map((l) => l.trim())
    .join("\n")
    .trim();
}

describe("interactive session commands", () => {
  it.skipIf(!hasTmux)(
    "/tree returns to an earlier message (its text back in the editor, later turns left out); /new starts empty",
    async () => {
      const { keys, waitFor } = ui;
      await waitFor((s) => s.includes("mock/mock-1") && s.includes("Enter send"), "the UI to start");
      for (const word of ["alpha", "beta"]) {
        keys(word);
        keys("Enter");
        await waitFor((s) => s.includes(`ok:${word}`) && !s.includes("working"), `reply to ${word}`);
      }
      keys("/tree");
      keys("Enter");
      await waitFor((s) => s.includes("Session tree") && s.includes("› beta"), "tree picker");
      // Filter down to the first user message and choose it.
      keys("alpha");
      await waitFor(
        (s) => s.includes("search: alpha") && /→ •?\s*› alpha/.test(s) && !/^\s+› beta/m.test(s),
        "filtered",
      );
      keys("Enter");
      // The user message goes back into the editor for rewording; the conversation continues before it.
      await waitFor((s) => !s.includes("Session tree") && editorText(s) === "alpha", "alpha back in the editor");
      keys("C-u"); // clear the line
      keys("gamma");
      keys("Enter");
      await waitFor((s) => s.includes("ok:gamma") && !s.includes("working"), "reply to gamma");
      const sent = JSON.stringify(server.requests.find((r) => lastUserText(r) === "gamma")!.messages);
      expect(sent).not.toContain("alpha");
      expect(sent).not.toContain("beta");

      // Editor: ↑ recalls the previous prompt; Ctrl+J makes a multi-line prompt, sent as typed.
      keys("Up");
      await waitFor((s) => editorText(s) === "gamma", "history recall");
      keys("C-u");
      keys("line one");
      keys("C-j");
      keys("line two");
      await waitFor((s) => editorText(s) === "line one\nline two", "two lines in the editor");
      keys("Enter");
      await waitFor((s) => s.includes("ok:line one") && !s.includes("working"), "reply to the two-line prompt");
      expect(server.requests.some((r) => lastUserText(r) === "line one\nline two")).toBe(true);

      keys("/new");
      keys("Enter");
      await waitFor((s) => s.includes("new session started"), "new session");
      keys("delta");
      keys("Enter");
      await waitFor((s) => s.includes("ok:delta") && !s.includes("working"), "reply to delta");
      const fresh = server.requests.find((r) => lastUserText(r) === "delta")!;
      expect(fresh.messages.filter((m) => m.role === "user")).toHaveLength(1);
    },
    120_000,
  );
});
