/**
 * The reference's own terminal client against Tiller's gateway: the real `openclaw tui` (OpenClaw 2026.9.6 under
 * Node 24, from bench/reference/openclaw/) in a tmux pane, connected to a Tiller gateway process on a loopback mock
 * model (bench/gateway-openai-model-server.ts). It sends "hello", then checks what a user sees: the reply, a status
 * line naming the model ("bench/stream", not "unknown") with token counts (not "tokens ?"), and `/status` typed in
 * the TUI answered by the gateway's own command (its "Session: … Model: … Tokens: …" text) without a model call.
 *
 * A check, not a benchmark: it lives in bench/ because the root workspace cannot hold openclaw (it refuses to install
 * below Node 24), so `npm test` never has it. Run with `npm run bench -- openclaw-tui` (scripts/bench.mjs installs
 * bench/reference/openclaw first). Exits 0 when everything was seen, 1 naming what was not; it skips (exit 0, says
 * so) only when bench/reference/openclaw or tmux is missing.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitLine } from "./wait-line.js";

const ROOT = join(import.meta.dirname, "..");
const REF = join(ROOT, "bench", "reference", "openclaw", "node_modules");
const NODE24 = join(REF, "node", "bin", "node");
const OPENCLAW = join(REF, "openclaw", "openclaw.mjs");
const TOKEN = "tui-check-token";
const SESSION = `tiller-tui-check-${process.pid}`;

if (!existsSync(NODE24) || !existsSync(OPENCLAW)) {
  console.log("skipped: bench/reference/openclaw is not installed (npm run bench -- openclaw-tui installs it)");
  process.exit(0);
}
if (spawnSync("tmux", ["-V"]).status !== 0) {
  console.log("skipped: tmux is not installed");
  process.exit(0);
}

const tmux = (...args: string[]): string => execFileSync("tmux", args, { encoding: "utf8" });
const screen = (): string => tmux("capture-pane", "-p", "-t", SESSION, "-S", "-200");

/** Waits until the pane shows what `test` looks for; resolves with the screen, or undefined after `ms`. */
async function until(test: (s: string) => boolean, ms: number): Promise<string | undefined> {
  const end = Date.now() + ms;
  for (;;) {
    const s = screen();
    if (test(s)) return s;
    if (Date.now() > end) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Types `text` into the TUI's editor, waits until the editor shows it, then submits it with Enter. */
async function type(text: string): Promise<void> {
  tmux("send-keys", "-t", SESSION, "-l", text);
  if (!(await until((s) => editorLine(s).includes(text), 15_000))) throw new Error(`the editor never showed "${text}"`);
  tmux("send-keys", "-t", SESSION, "Enter");
  // Submitted: the editor is empty again.
  if (!(await until((s) => !editorLine(s).includes(text), 15_000))) throw new Error(`"${text}" was not submitted`);
}

/** The editor: the lines between the TUI's two bottom rules. */
function editorLine(s: string): string {
  const lines = s.split("\n");
  const rules = lines.map((l, i) => (/^─{20,}/.test(l) ? i : -1)).filter((i) => i >= 0);
  return rules.length >= 2 ? lines.slice((rules.at(-2) as number) + 1, rules.at(-1)).join("\n") : "";
}

const scratch = mkdtempSync(join(tmpdir(), "tiller-tui-check-"));
const home = join(scratch, "tiller");
const ocState = join(scratch, "openclaw-state");
const ocHome = join(scratch, "openclaw-home");
for (const d of [home, ocState, ocHome]) mkdirSync(d, { recursive: true });
const procs: ChildProcess[] = [];
const failures: string[] = [];
let lastScreen = "";
try {
  const model = spawn(process.execPath, ["--import", "tsx", join(ROOT, "bench/gateway-openai-model-server.ts")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  procs.push(model);
  const modelUrl = (await waitLine(model, /listening (http:\/\/\S+)/))[1] as string;
  writeFileSync(join(home, "tiller.json"), JSON.stringify({ agents: { defaults: { model: "bench/stream" } } }));
  writeFileSync(
    join(home, "models.json"),
    JSON.stringify({
      providers: {
        bench: {
          baseUrl: `${modelUrl}/v1`,
          apiKey: "bench",
          api: "openai-completions",
          models: [{ id: "stream", contextWindow: 128_000, maxTokens: 8192 }],
        },
      },
    }),
  );
  const gw = spawn(
    process.execPath,
    [
      "--conditions=tiller-source",
      "--import",
      "tsx",
      join(ROOT, "packages/gateway/src/cli/gateway-command.ts"),
      "--port",
      "0",
      "--token",
      TOKEN,
    ],
    {
      cwd: ROOT,
      env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_TOKEN: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  procs.push(gw);
  gw.stderr?.resume();
  const url = (await waitLine(gw, /listening (ws:\/\/\S+)/))[1] as string;
  const completions = async (): Promise<number> =>
    ((await (await fetch(`${modelUrl}/bench/requests`)).json()) as { completions: number }).completions;

  const command = [
    "env",
    `HOME=${ocHome}`,
    `OPENCLAW_STATE_DIR=${ocState}`,
    "NO_COLOR=1",
    "TERM=xterm-256color",
    NODE24,
    OPENCLAW,
    "tui",
    "--url",
    url,
    "--token",
    TOKEN,
    "--session",
    "tui-check",
  ]
    .map((a) => `'${a.replace(/'/g, "'\\''")}'`)
    .join(" ");
  tmux("new-session", "-d", "-s", SESSION, "-x", "160", "-y", "45", command);

  // Connected: the TUI's activity line says so (it reads "connecting" until the gateway's hello).
  lastScreen = (await until((s) => /\bconnected \| /.test(s), 90_000)) ?? screen();
  if (!/\bconnected \| /.test(lastScreen)) throw new Error("the TUI never showed a connected status line");

  await type("hello");
  const afterReply = await until((s) => /^\s*ok\s*$/m.test(s.split("hello").slice(1).join("hello")), 60_000);
  lastScreen = afterReply ?? screen();
  if (!afterReply) failures.push('no reply "ok" to "hello" on screen');
  // The status line: the session's model, and token counts (the reference shows "tokens ?" when it has none).
  // The status line is the one with "deliver:"; it reads "unknown" and "tokens ?" when the rows lack the fields.
  const statusLine = (s: string): string => s.split("\n").find((l) => l.includes("deliver:")) ?? "";
  const good = (l: string): boolean => /\| stream \|/.test(l) && /tokens \d+/.test(l);
  const settled = (await until((s) => good(statusLine(s)), 30_000)) ?? screen();
  lastScreen = settled;
  const line = statusLine(settled);
  if (!/\| stream \|/.test(line)) failures.push(`the status line does not name the model: ${line.trim()}`);
  if (!/tokens \d+/.test(line)) failures.push(`the status line shows no token counts: ${line.trim()}`);

  const before = await completions();
  await type("/status");
  const status = await until((s) => /Session: agent:main:tui-check/.test(s) && /Tokens: \d/.test(s), 60_000);
  lastScreen = status ?? screen();
  if (!status) failures.push("/status was not answered with the gateway's status text");
  if ((await completions()) !== before) failures.push("/status reached the model");
} catch (err) {
  failures.push(`error: ${err instanceof Error ? err.message : String(err)}`);
} finally {
  spawnSync("tmux", ["kill-session", "-t", SESSION]);
  for (const p of procs) p.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.log(
    `openclaw tui against Tiller's gateway: FAILED\n- ${failures.join("\n- ")}\n--- last screen ---\n${lastScreen}`,
  );
  process.exit(1);
}
console.log("openclaw tui against Tiller's gateway: reply shown, status line names the model and tokens, /status");
console.log("answered by the gateway without a model call");
console.log(`--- last screen ---\n${lastScreen}`);
