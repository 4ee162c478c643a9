/**
 * The interactive UI end to end in tmux, with a scripted model (a loopback OpenAI-compatible server) that calls
 * tools: bash output streams into its block while the command runs, write and edit show as diffs, each block
 * ends with its state and time; then /model fuzzy search, /resume with title/age/size, and a 2,000-line paste
 * that reaches the model whole.
 */

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import {
  type ChatRequestBody,
  lastUserText,
  type MockReply,
  type MockServer,
  startMockOpenAI,
} from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-tools-pickers: SKIPPED — tmux is not installed (apt-get install tmux)");

let server: MockServer;
let fx: CliFixture;
let ui: TuiSession;

const toolResults = (body: ChatRequestBody) => body.messages.filter((m) => m.role === "tool").length;

function script(body: ChatRequestBody): MockReply {
  const user = lastUserText(body);
  if (user.startsWith("paste:")) return { text: `got ${user.split("\n").length} lines` };
  if (user !== "run the tools") return { text: `ok:${user}` };
  switch (toolResults(body)) {
    case 0:
      return {
        toolCalls: [
          {
            name: "bash",
            arguments: { command: "for i in 1 2 3 4 5 6 7 8 9 10 11 12; do echo out$i; sleep 0.25; done" },
          },
        ],
      };
    case 1:
      return { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "alpha\nbeta\ngamma\n" } }] };
    case 2:
      return {
        toolCalls: [{ name: "edit", arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "BETA!" }] } }],
      };
    default:
      return { text: "All **done**." };
  }
}

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI(script);
  fx = makeFixture(server, "tiller-tui-tools-");
  ui = startTui(fx, "tiller-tools", []);
});

afterAll(async () => {
  if (!hasTmux) return;
  ui.kill();
  await server.close();
  fx.cleanup();
});

describe("tool blocks, pickers and paste in a real terminal", () => {
  it.skipIf(!hasTmux)(
    "streams bash output live, shows write/edit as diffs, searches models, resumes a session, takes a 2,000-line paste",
    async () => {
      const { keys, waitFor, history } = ui;
      await waitFor((s) => s.includes("mock/mock-1") && s.includes("Enter send"), "the UI to start");

      keys("run the tools");
      keys("Enter");
      // bash: its block is running and shows output while the command still runs.
      const live = await waitFor(
        (s) => /● bash for i in/.test(s) && s.includes("out2") && s.includes("running"),
        "live bash output",
      );
      expect(live).not.toContain("out12");
      // The block shows the newest lines while running and ends ✓ with its elapsed time.
      await waitFor((s) => /✓ bash for i in .* \d+(\.\d)?s/.test(s), "bash finished");
      await waitFor((s) => s.includes("All done.") && !s.includes("working"), "the final reply");
      const all = history();
      // Collapsed: a finished bash result shows its first lines and how many more there are.
      expect(all).toMatch(/out1\n\s+out2/);
      expect(all).toMatch(/… \d+ more lines · Ctrl\+O to expand/);
      // write: every line added; edit: the changed line removed and added, with a hunk header.
      expect(all).toMatch(/✓ write notes\.txt \(4 lines\)/);
      expect(all).toMatch(/\+alpha\n\s+\+beta\n\s+\+gamma/);
      expect(all).toMatch(/✓ edit notes\.txt/);
      expect(all).toMatch(/@@ .* @@/);
      expect(all).toMatch(/-beta\n\s+\+BETA!/);
      expect(readFileSync(join(fx.project, "notes.txt"), "utf8")).toBe("alpha\nBETA!\ngamma\n");
      // Markdown in the reply: no literal asterisks.
      expect(all).not.toContain("**done**");

      // Ctrl+O: the last (finished) call is shown again, whole.
      keys("C-o");
      await waitFor((s) => s.includes("tool output expanded"), "expanded notice");

      // /model with a query: fuzzy search over the catalog, Enter takes the best match.
      keys("/model tiler-offln");
      keys("Enter");
      const picker = await waitFor(
        (s) => s.includes("search: tiler-offln") && s.includes("→ offline/tiller-offline"),
        "model search",
      );
      expect(picker).toMatch(/search: tiler-offln\s+1\/\d+/); // one match out of the whole catalog
      keys("Enter");
      await waitFor((s) => s.includes("model: offline/tiller-offline"), "model switched");
      keys("/model mock");
      keys("Enter");
      await waitFor((s) => s.includes("search: mock") && s.includes("→ mock/mock-1"), "model search 2");
      keys("Enter");
      await waitFor((s) => s.includes("model: mock/mock-1"), "model back");

      // /new, then /resume lists the first session with its title, age and size, searchable.
      keys("/new");
      keys("Enter");
      await waitFor((s) => s.includes("new session started"), "new session");
      keys("something else");
      keys("Enter");
      await waitFor((s) => s.includes("ok:something else") && !s.includes("working"), "reply in the new session");
      keys("/resume");
      keys("Enter");
      const list = await waitFor((s) => s.includes("Resume session") && s.includes("run the tools"), "resume picker");
      expect(list).toMatch(/run the tools\s+(just now|\dm ago) · \d+(\.\d)? KB/);
      keys("run tools");
      await waitFor((s) => s.includes("search: run tools") && s.includes("1/"), "resume search");
      keys("Enter");
      const after = await waitFor(
        (s) => /resumed\s+\//.test(s) && s.split("All done.").length - 1 === 2,
        "resumed session",
        history,
      );
      expect(after).toMatch(/resumed\s+\//);
      expect(after.split("you › run the tools").length - 1).toBe(2); // the original turn and its replay

      // A 2,000-line bracketed paste lands in the editor as one marker and reaches the model whole.
      const lines = Array.from({ length: 2000 }, (_, i) => `pasted line ${i + 1} ${"x".repeat(40)}`);
      const file = join(fx.root, "paste.txt");
      writeFileSync(file, `paste:\n${lines.join("\n")}`);
      keys("C-u");
      execFileSync("tmux", ["load-buffer", "-b", "big", file]);
      const started = Date.now();
      execFileSync("tmux", ["paste-buffer", "-p", "-b", "big", "-t", ui.target]);
      await waitFor((s) => /\[paste #1 \+2001 lines\]/.test(s), "the paste marker");
      keys("Enter");
      await waitFor((s) => s.includes("got 2001 lines"), "the model's reply to the paste");
      console.log(`tui-tools-pickers: 2,000-line paste to reply in ${Date.now() - started} ms`);
      const sent = server.requests.find((r) => lastUserText(r).startsWith("paste:"))!;
      expect(lastUserText(sent).split("\n")).toHaveLength(2001);
      expect(lastUserText(sent)).toContain("pasted line 2000 ");
      // Through all of it the screen and the scrollback were never cleared.
      const raw = readFileSync(ui.rawLog, "latin1");
      expect(raw).not.toContain("\x1b[2J");
      expect(raw).not.toContain("\x1b[3J");
    },
    180_000,
  );
});
