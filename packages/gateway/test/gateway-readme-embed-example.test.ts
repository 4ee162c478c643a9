/**
 * The README's embedding example is real: extracted from packages/gateway/README.md, run as a program (TypeScript
 * through tsx, `@tiller/gateway` resolved as a package) against a temp $TILLER_HOME whose models.json points at the
 * loopback mock provider. It starts the whole gateway with one `startGateway` call, runs a message and prints the
 * reply and the session's model and tokens.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import { makeHome, ROOT, removeHome, startMockProvider } from "./gateway-harness.js";

let mock: MockServer;
let home: string;
let dir: string;

function example(): string {
  const text = readFileSync(join(ROOT, "packages/gateway/README.md"), "utf8");
  const start = text.indexOf("`examples/embed.ts`:");
  expect(start).toBeGreaterThan(0);
  const m = /```ts\n([\s\S]*?)```/.exec(text.slice(start));
  expect(m).not.toBeNull();
  return (m as RegExpExecArray)[1] as string;
}

beforeAll(async () => {
  mock = await startMockProvider();
  home = makeHome({ mockBaseUrl: mock.baseUrl });
  dir = mkdtempSync(join(tmpdir(), "tiller-embed-"));
  // A program outside the repository that depends on the workspace's packages.
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "embed.mts"), example());
});

afterAll(async () => {
  await mock?.close();
  removeHome(home);
  rmSync(dir, { recursive: true, force: true });
});

describe("README embedding example", () => {
  it("starts the product gateway with one call, runs a message, and shuts down", async () => {
    const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const proc = spawn(process.execPath, ["--conditions=tiller-source", "--import", "tsx", join(dir, "embed.mts")], {
        cwd: dir,
        env: { ...process.env, TILLER_HOME: home },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let out = "";
      let err = "";
      proc.stdout?.on("data", (d: Buffer) => {
        out += String(d);
      });
      proc.stderr?.on("data", (d: Buffer) => {
        err += String(d);
      });
      proc.once("exit", (code) => resolve({ code, out, err }));
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("ok: echo: hello from an embedding program");
    expect(r.out).toContain("model mock/mock-1, 15 tokens in context");
    // The product pipeline ran: the assembled system prompt (tools, safety…) reached the model, not the bare default.
    const system = JSON.stringify((mock.requests.at(-1)?.body as { messages?: unknown[] })?.messages?.[0] ?? "");
    expect(system).toContain("## Tools");
    expect(system).toContain("## Safety");
  }, 60_000);
});
