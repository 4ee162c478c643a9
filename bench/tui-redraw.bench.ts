/**
 * Terminal redraw cost per streamed delta as the transcript grows. A reply (Markdown with a list and a code
 * block, 60 deltas, one frame per delta at ~50 deltas/s) is streamed after 0, 200 and 2,000 finished turns,
 * through Tiller's real ChatView + LiveRenderer + AssistantItem, and through pi-tui 0.73.1's TUI with its
 * Markdown component (what pi's interactive mode uses) on the same content. Both write to a counting terminal
 * (100×40). Reported: bytes written per delta and CPU time per frame; then the CPU per frame of a 2,000-line
 * code block streamed 10 lines per delta. Tiller's bytes per delta must not grow
 * with the transcript (the bench exits 1 if the largest transcript costs more than 1.25× the empty one).
 * `npm run bench -- tui`.
 */
import { Markdown, type Terminal, Text, TUI } from "@mariozechner/pi-tui";
import { AssistantItem, UserItem } from "../packages/coding-agent/src/cli/tui/chat-items.js";
import { ChatView } from "../packages/coding-agent/src/cli/tui/chat-view.js";
import { LiveRenderer } from "../packages/coding-agent/src/cli/tui/live-renderer.js";
import { createTheme, setTheme } from "../packages/coding-agent/src/cli/tui/theme.js";
import { ToolItem } from "../packages/coding-agent/src/cli/tui/tool-item.js";

// No colours on either side, so bytes compare like for like (pi-tui gets a plain theme below).
setTheme(createTheme({ mode: "dark", color: false }));

class CountingTerminal implements Terminal {
  columns = 100;
  rows = 40;
  kittyProtocolActive = false;
  bytes = 0;
  writes = 0;
  start(): void {}
  stop(): void {}
  async drainInput(): Promise<void> {}
  write(data: string): void {
    this.bytes += Buffer.byteLength(data);
    this.writes++;
  }
  moveBy(): void {}
  hideCursor(): void {}
  showCursor(): void {}
  clearLine(): void {}
  clearFromCursor(): void {}
  clearScreen(): void {}
  setTitle(): void {}
  setProgress(): void {}
}

const REPLY = [
  "## Plan\n\nI will **change** three files and run the `tests`:\n\n",
  "1. update `src/app.ts`\n2. add a test\n3. run [the suite](https://example.com)\n\n",
  "```ts\nexport function add(a: number, b: number): number {\n  return a + b;\n}\n```\n\nDone, all green.",
].join("");
const DELTAS = 60;
const PAST_REPLY = "Earlier answer with **bold**, a list:\n\n- one\n- two\n\nand `code`.";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const chunks = (): string[] => {
  const size = Math.ceil(REPLY.length / DELTAS);
  return Array.from({ length: DELTAS }, (_, i) => REPLY.slice(0, Math.min(REPLY.length, (i + 1) * size)));
};

interface Result {
  bytesPerDelta: number;
  cpuMsPerFrame: number;
}

async function tiller(turns: number): Promise<Result> {
  const term = new CountingTerminal();
  let renderer!: LiveRenderer;
  const view = new ChatView((lines) => renderer.commit(lines));
  renderer = new LiveRenderer(term, view);
  view.setPanel([new Text("status", 1, 0), new Text("> editor", 1, 0)]);
  renderer.start(() => {});
  for (let i = 0; i < turns; i++) {
    view.add(new UserItem(`question ${i}`));
    const a = new AssistantItem();
    a.end({ content: [{ type: "text", text: PAST_REPLY }], stopReason: "stop" });
    view.add(a);
    const t = new ToolItem(`t${i}`, "bash");
    t.start({ command: "ls" }, 0);
    t.end({ content: [{ type: "text", text: "a\nb\nc" }] }, false, 5);
    view.add(t);
  }
  renderer.requestRender();
  await renderer.idle();
  const item = new AssistantItem();
  view.add(item);
  const before = term.bytes;
  const cpu = process.cpuUsage();
  const frames0 = renderer.frames;
  for (const text of chunks()) {
    item.update({ content: [{ type: "text", text }] });
    renderer.requestRender();
    await sleep(20);
  }
  await renderer.idle();
  const used = process.cpuUsage(cpu);
  const frames = Math.max(1, renderer.frames - frames0);
  const result = {
    bytesPerDelta: (term.bytes - before) / DELTAS,
    cpuMsPerFrame: (used.user + used.system) / 1000 / frames,
  };
  renderer.stop();
  return result;
}

async function pi(turns: number): Promise<Result> {
  const term = new CountingTerminal();
  const tui = new TUI(term);
  const mdTheme = {
    heading: (s: string) => s,
    link: (s: string) => s,
    linkUrl: (s: string) => s,
    code: (s: string) => s,
    codeBlock: (s: string) => s,
    codeBlockBorder: (s: string) => s,
    quote: (s: string) => s,
    quoteBorder: (s: string) => s,
    hr: (s: string) => s,
    listBullet: (s: string) => s,
    bold: (s: string) => `\x1b[1m${s}\x1b[22m`,
    italic: (s: string) => s,
    strikethrough: (s: string) => s,
    underline: (s: string) => s,
  };
  for (let i = 0; i < turns; i++) {
    tui.addChild(new Text(`you › question ${i}`, 1, 0));
    tui.addChild(new Markdown(PAST_REPLY, 1, 0, mdTheme));
    tui.addChild(new Text("✓ bash ls\na\nb\nc", 1, 0));
  }
  const md = new Markdown("", 1, 0, mdTheme);
  tui.addChild(md);
  tui.addChild(new Text("status", 1, 0));
  tui.addChild(new Text("> editor", 1, 0));
  tui.start();
  await sleep(50);
  const before = term.bytes;
  const writes0 = term.writes;
  const cpu = process.cpuUsage();
  for (const text of chunks()) {
    md.setText(text);
    tui.requestRender();
    await sleep(20);
  }
  await sleep(50);
  const used = process.cpuUsage(cpu);
  const frames = Math.max(1, term.writes - writes0);
  const result = {
    bytesPerDelta: (term.bytes - before) / DELTAS,
    cpuMsPerFrame: (used.user + used.system) / 1000 / frames,
  };
  tui.stop();
  return result;
}

const sizes = [0, 200, 2000];
const rows: Array<{ turns: number; t: Result; p: Result }> = [];
for (const turns of sizes) rows.push({ turns, t: await tiller(turns), p: await pi(turns) });
console.log(
  "turns in transcript | tiller bytes/delta | tiller cpu ms/frame | pi-tui bytes/delta | pi-tui cpu ms/frame",
);
for (const r of rows) {
  console.log(
    `${String(r.turns).padStart(19)} | ${r.t.bytesPerDelta.toFixed(0).padStart(18)} | ${r.t.cpuMsPerFrame.toFixed(3).padStart(19)} | ${r.p.bytesPerDelta.toFixed(0).padStart(18)} | ${r.p.cpuMsPerFrame.toFixed(3).padStart(19)}`,
  );
}
// A long code block streamed 10 lines per delta: CPU per frame as it grows (the block is re-lexed each frame,
// its earlier lines' highlighting reused). pi-tui's Markdown re-renders the whole text each frame (unhighlighted).
const codeLines = Array.from(
  { length: 2000 },
  (_, i) => `const value${i} = compute(${i}, "string ${i}"); // note ${i}`,
);
const { StreamingMarkdown } = await import("../packages/coding-agent/src/cli/tui/markdown/streaming-markdown.js");
setTheme(createTheme({ mode: "dark", color: true }));
const ours = new StreamingMarkdown({ hyperlinks: false });
const theirs = new Markdown("", 1, 0, {
  heading: (s) => s,
  link: (s) => s,
  linkUrl: (s) => s,
  code: (s) => s,
  codeBlock: (s) => s,
  codeBlockBorder: (s) => s,
  quote: (s) => s,
  quoteBorder: (s) => s,
  hr: (s) => s,
  listBullet: (s) => s,
  bold: (s) => s,
  italic: (s) => s,
  strikethrough: (s) => s,
  underline: (s) => s,
});
const at: Record<number, { ours: number; theirs: number }> = {};
let text = "```ts\n";
for (let n = 10; n <= codeLines.length; n += 10) {
  text += `${codeLines.slice(n - 10, n).join("\n")}\n`;
  let t0 = performance.now();
  ours.setText(text);
  ours.render(100);
  const o = performance.now() - t0;
  t0 = performance.now();
  theirs.setText(text);
  theirs.render(100);
  const p = performance.now() - t0;
  // Mean over each 500-line stretch (single frames are noisy: GC).
  const bucket = Math.ceil(n / 500) * 500;
  const acc = (at[bucket] ??= { ours: 0, theirs: 0 });
  acc.ours += o / 50;
  acc.theirs += p / 50;
}
console.log(
  "\ncode block lines (mean over the 500 before) | tiller ms/frame (highlighted) | pi-tui Markdown ms/frame (plain)",
);
for (const [n, r] of Object.entries(at))
  console.log(`${n.padStart(43)} | ${r.ours.toFixed(2).padStart(29)} | ${r.theirs.toFixed(2).padStart(32)}`);

const first = rows[0]!.t.bytesPerDelta;
const last = rows[rows.length - 1]!.t.bytesPerDelta;
console.log(`tiller bytes/delta, ${sizes[sizes.length - 1]} turns vs empty: ${(last / first).toFixed(2)}×`);
if (last > first * 1.25) {
  console.error("tui-redraw.bench: bytes per delta grow with the transcript");
  process.exit(1);
}
process.exit(0);
