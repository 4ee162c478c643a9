/**
 * The terminal UI asks inline when a command needs approval (tmux): the prompt shows the command exactly as it
 * will run; `y` runs it once, `n` denies it (the model is told), `a` runs it and adds it to the allowlist, after
 * which the same command runs without a prompt.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-approval-prompt: SKIPPED — tmux is not installed (apt-get install tmux)");

let server: MockServer;
let fx: CliFixture;
let ui: TuiSession;

const commandFor = (name: string) => `touch ${name}  &&  echo "made  ${name}"`;

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI((body) => {
    const last = body.messages[body.messages.length - 1]!;
    if (last.role === "tool") return { text: `TOOL-RESULT ${JSON.stringify(last.content).slice(0, 120)}` };
    const m = /make (\S+)/.exec(lastUserText(body));
    if (m) return { toolCalls: [{ name: "bash", arguments: { command: commandFor(m[1]!) } }] };
    return { text: "nothing" };
  });
  fx = makeFixture(server, "tiller-tui-approve-");
  writeFileSync(join(fx.home, "exec-approvals.json"), JSON.stringify({ security: "allowlist", ask: "on-miss" }), {
    mode: 0o600,
  });
  ui = startTui(fx, "tiller-tui-approve", ["--no-session"]);
});

afterAll(async () => {
  if (!hasTmux) return;
  ui.kill();
  await server.close();
  fx.cleanup();
});

describe("TUI approval prompt", () => {
  it.skipIf(!hasTmux)(
    "shows the exact command; y runs once, n denies, a allows always and stops asking",
    async () => {
      const { keys, waitFor } = ui;
      await waitFor((s) => s.includes("mock/mock-1"), "the UI to start");
      const made = (name: string) => existsSync(join(fx.project, name));

      // y: allowed once.
      keys("make one.txt");
      keys("Enter");
      const prompt = await waitFor((s) => s.includes("Run this command?"), "the approval prompt");
      expect(prompt).toContain(`$ ${commandFor("one.txt")}`); // exactly, double spaces and quotes kept
      expect(prompt).toContain(`in ${fx.project}`);
      expect(prompt).toMatch(/y allow once · a always · n deny|y allow once · n deny · a always/);
      expect(made("one.txt")).toBe(false);
      keys("y");
      await waitFor((s) => s.includes("TOOL-RESULT") && s.includes("made  one.txt") && !s.includes("working"), "y");
      expect(made("one.txt")).toBe(true);
      expect(ui.screen()).not.toContain("Run this command?");

      // n: denied; the model reads the denial.
      keys("make two.txt");
      keys("Enter");
      await waitFor((s) => s.includes(`$ ${commandFor("two.txt")}`), "the second prompt");
      keys("n");
      await waitFor((s) => s.includes("TOOL-RESULT") && s.includes("Denied") && !s.includes("working"), "n");
      expect(made("two.txt")).toBe(false);

      // a: allowed always — added to the allowlist.
      keys("make three.txt");
      keys("Enter");
      await waitFor((s) => s.includes(`$ ${commandFor("three.txt")}`), "the third prompt");
      keys("a");
      await waitFor((s) => s.includes("allowlisted in") && !s.includes("working"), "a");
      expect(made("three.txt")).toBe(true);
      const saved = JSON.parse(readFileSync(join(fx.home, "exec-approvals.json"), "utf8")) as {
        allowlist: { pattern: string }[];
      };
      expect(saved.allowlist.map((e) => e.pattern)).toEqual([
        expect.stringMatching(/\/touch$/),
        expect.stringMatching(/\/echo$/),
      ]);

      // The same command now runs without a prompt.
      keys("make four.txt");
      keys("Enter");
      await waitFor((s) => s.includes("made  four.txt") && s.includes("TOOL-RESULT") && !s.includes("working"), "four");
      expect(made("four.txt")).toBe(true);
      expect(server.requests.length).toBe(8);

      keys("C-d");
      await waitFor((s) => s.includes("TILLER-EXITED-0"), "a clean exit", ui.screen, 20_000);
    },
    120_000,
  );
});
