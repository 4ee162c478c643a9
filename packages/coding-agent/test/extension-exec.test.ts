/**
 * `ExtensionAPI.exec` (pi's `pi.exec`): an extension runs a program without a shell and gets stdout, stderr, the
 * exit code and whether it was stopped — the same result pi's extension API gives for the same calls, each made
 * from an extension tool loaded by both.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { registerFauxProvider } from "@tiller/ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createAgentSessionFromServices,
  createAgentSessionServices,
  type ExecResult,
  SessionManager,
} from "../src/index.js";

let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
type Run = (cmd: string, args: string[], opts?: { timeout?: number; cwd?: string }) => Promise<ExecResult>;
let ours: Run;
let pis: Run;
const cleanup: Array<() => void> = [];

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "tiller-ext-exec-")));
  faux = registerFauxProvider();
  const agentDir = join(dir, "agent");
  const cwd = join(dir, "proj");
  mkdirSync(join(agentDir, "extensions"), { recursive: true });
  mkdirSync(join(cwd, "sub"), { recursive: true });
  writeFileSync(
    join(agentDir, "extensions", "runner.ts"),
    `export default function (api) {
  api.registerTool({ name: "run", label: "run", description: "runs a program", parameters: { type: "object", properties: {} },
    execute: async (_id, p) => {
      const r = await api.exec(p.cmd, p.args, p.opts);
      return { content: [{ type: "text", text: JSON.stringify(r) }], details: undefined };
    } });
}\n`,
  );
  const services = await createAgentSessionServices({ cwd, agentDir });
  const { session } = await createAgentSessionFromServices({
    services,
    sessionManager: SessionManager.inMemory(cwd),
    model: faux.getModel(),
  });
  const piServices = await Pi.createAgentSessionServices({ cwd, agentDir });
  const { session: pi } = await Pi.createAgentSessionFromServices({
    services: piServices,
    sessionManager: Pi.SessionManager.inMemory(cwd),
    model: faux.getModel() as never,
  });
  cleanup.push(
    () => session.dispose(),
    () => pi.dispose(),
  );
  const call = (
    def: { execute: (...a: never[]) => Promise<{ content: Array<{ type: string; text?: string }> }> } | undefined,
  ) =>
    (async (cmd, args, opts) => {
      const r = await def?.execute(...(["id", { cmd, args, opts }, undefined, undefined, undefined] as never[]));
      return JSON.parse(r?.content[0]?.text ?? "null") as ExecResult;
    }) as Run;
  ours = call(session.getToolDefinition("run") as never);
  pis = call(pi.getToolDefinition("run") as never);
});
afterAll(() => {
  for (const c of cleanup) c();
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

const node = process.execPath;

describe("ExtensionAPI.exec", () => {
  it("returns stdout, stderr and the exit code, as pi's does", async () => {
    const args = ["-e", "process.stdout.write('out ünïcode'); process.stderr.write('err'); process.exit(3)"];
    const a = await ours(node, args);
    expect(a).toEqual(await pis(node, args));
    expect(a).toEqual({ stdout: "out ünïcode", stderr: "err", code: 3, killed: false });
  });

  it("passes arguments without a shell and runs in the extension's cwd or options.cwd", async () => {
    const args = ["-e", "console.log(JSON.stringify([process.cwd(), process.argv.slice(1)]))", "$HOME", "a b"];
    expect(await ours(node, args)).toEqual(await pis(node, args));
    const sub = await ours(node, args, { cwd: join(dir, "proj", "sub") });
    expect(sub).toEqual(await pis(node, args, { cwd: join(dir, "proj", "sub") }));
    expect(JSON.parse(sub.stdout)).toEqual([join(dir, "proj", "sub"), ["$HOME", "a b"]]);
  });

  it("stops a program past its timeout and says so", async () => {
    const args = ["-e", "process.stdout.write('started'); setTimeout(() => {}, 30000)"];
    const started = Date.now();
    const a = await ours(node, args, { timeout: 300 });
    const b = await pis(node, args, { timeout: 300 });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(a).toEqual(b);
    expect(a.killed).toBe(true);
  });

  it("a program that cannot start ends with code 1, like pi, and the reason in stderr", async () => {
    const a = await ours("no-such-program-tiller", []);
    const b = await pis("no-such-program-tiller", []);
    expect({ ...a, stderr: "" }).toEqual(b);
    expect(a.stderr).toMatch(/ENOENT/);
  });
});
