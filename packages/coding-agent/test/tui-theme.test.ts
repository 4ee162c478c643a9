/**
 * Colours in a real terminal (tmux, read back with its escape sequences): the `theme: "light"` setting gives
 * the light palette (plain yellow inline code instead of bright yellow), and NO_COLOR removes every colour while
 * bold stays.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { hasTmux, startTui, type TuiSession } from "./cli-helpers/tmux.js";

if (!hasTmux) console.warn("tui-theme: SKIPPED — tmux is not installed (apt-get install tmux)");

let server: MockServer;
const fixtures: CliFixture[] = [];
const sessions: TuiSession[] = [];

beforeAll(async () => {
  if (!hasTmux) return;
  server = await startMockOpenAI(() => ({ text: "Run `make` and **then** rest." }));
});

afterAll(async () => {
  if (!hasTmux) return;
  for (const s of sessions) s.kill();
  await server.close();
  for (const f of fixtures) f.cleanup();
});

async function replyWithEscapes(name: string, env: Record<string, string | undefined>): Promise<string> {
  const fx = makeFixture(server, `tiller-tui-${name}-`);
  fixtures.push(fx);
  writeFileSync(
    join(fx.home, "settings.json"),
    JSON.stringify({ defaultProvider: "mock", defaultModel: "mock-1", theme: "light" }),
  );
  Object.assign(fx.env, env);
  const ui = startTui(fx, `tiller-${name}`, ["--no-session"]);
  sessions.push(ui);
  await ui.waitFor((s) => s.includes("Enter send"), "the UI to start");
  ui.keys("hello");
  ui.keys("Enter");
  await ui.waitFor((s) => s.includes("rest.") && !s.includes("working"), "the reply");
  return execFileSync("tmux", ["capture-pane", "-p", "-e", "-t", ui.target], { encoding: "utf8" });
}

describe("themes in the terminal", () => {
  it.skipIf(!hasTmux)(
    "the light theme setting colours inline code dark yellow; NO_COLOR leaves no colour, bold stays",
    async () => {
      const light = await replyWithEscapes("light", { NO_COLOR: undefined });
      const line = light.split("\n").find((l) => l.includes("make"))!;
      expect(line).toMatch(/\x1b\[33mmake/); // plain yellow: the light palette
      expect(line).not.toMatch(/\x1b\[93m/);
      const plain = await replyWithEscapes("nocolor", { NO_COLOR: "1" });
      const reply = plain.split("\n").find((l) => l.includes("make"))!;
      expect(reply).not.toMatch(/\x1b\[(3[0-7]|9[0-7]|38;)/);
      expect(reply).toMatch(/\x1b\[1mthen/);
    },
    120_000,
  );
});
