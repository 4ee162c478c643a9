/**
 * The gateway owns its home: a second gateway on the same TILLER_HOME refuses to start and names the first one
 * (pid and address); once the first is killed with SIGKILL — reaped, or left a zombie by a parent that never
 * reaps — a new gateway starts at once on that home.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import {
  connectClient,
  GATEWAY_CLI,
  type GatewayProc,
  makeHome,
  ROOT,
  removeHome,
  spawnGateway,
} from "./gateway-harness.js";
import { isZombie, spawnUnreapedGateway, type UnreapedGateway } from "./unreaped-gateway.js";

const homes: string[] = [];
const procs: GatewayProc[] = [];
const unreaped: UnreapedGateway[] = [];
afterAll(async () => {
  for (const p of procs) await p.kill();
  for (const u of unreaped) u.dispose();
  for (const h of homes) removeHome(h);
});

/** Starts a gateway that is expected to refuse: its exit code and stderr. */
function startRefused(home: string): Promise<{ code: number | null; stderr: string }> {
  const proc = spawn(process.execPath, ["--conditions=tiller-source", "--import", "tsx", GATEWAY_CLI, "--port", "0"], {
    cwd: ROOT,
    env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_TOKEN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  proc.stderr?.on("data", (d: Buffer) => {
    stderr += String(d);
  });
  proc.stdout?.on("data", (d: Buffer) => {
    stdout += String(d);
    // A second gateway that did start would be a failure; stop it so the test ends.
    if (stdout.includes("listening")) proc.kill("SIGKILL");
  });
  return new Promise((resolve) => proc.once("exit", (code) => resolve({ code, stderr })));
}

it("a second gateway on one home refuses, naming the first; after SIGKILL of the first a new one starts at once", async () => {
  const home = makeHome();
  homes.push(home);
  const first = await spawnGateway(home);
  procs.push(first);
  const lock = JSON.parse(readFileSync(join(home, "gateway.lock"), "utf8"));
  expect(lock).toMatchObject({ pid: first.proc.pid, details: { address: first.url } });

  const second = await startRefused(home);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain(`another gateway is running on ${home}: pid ${first.proc.pid} at ${first.url}`);
  expect(second.stderr).toContain(`Stop it (kill ${first.proc.pid}) or start this one with another TILLER_HOME.`);
  // The refused one touched nothing: the first still serves and still holds the lock.
  const { client } = await connectClient(first.url);
  expect(await client.request("status", {})).toMatchObject({ ok: true });
  await client.close();
  expect(JSON.parse(readFileSync(join(home, "gateway.lock"), "utf8")).pid).toBe(first.proc.pid);

  await first.kill();
  expect(existsSync(join(home, "gateway.lock"))).toBe(true); // SIGKILL leaves the lock behind
  const started = Date.now();
  const third = await spawnGateway(home);
  procs.push(third);
  const startMs = Date.now() - started;
  expect(third.stderr.join("")).toContain(
    `home lock of a dead gateway reclaimed: pid ${first.proc.pid} is not running`,
  );
  console.log(`gateway restart after SIGKILL of the holder: listening after ${startMs} ms (process start included)`);
  expect(JSON.parse(readFileSync(join(home, "gateway.lock"), "utf8"))).toMatchObject({
    pid: third.proc.pid,
    details: { address: third.url },
  });

  // A clean stop removes the lock.
  const c3 = await connectClient(third.url);
  expect(await c3.client.request("status", {})).toMatchObject({ ok: true });
  await c3.client.close();
  await third.stop();
  expect(third.proc.exitCode).toBe(0);
  expect(existsSync(join(home, "gateway.lock"))).toBe(false);
}, 90_000);

it("a killed gateway left a zombie by a parent that never reaps it does not hold its home", async () => {
  const home = makeHome();
  homes.push(home);
  const first = await spawnUnreapedGateway(home);
  unreaped.push(first);
  expect((await startRefused(home)).stderr).toContain(`pid ${first.pid} at ${first.url}`);
  await first.killToZombie();
  expect(isZombie(first.pid)).toBe(true);
  const next = await spawnGateway(home);
  procs.push(next);
  expect(next.stderr.join("")).toContain(`home lock of a dead gateway reclaimed: pid ${first.pid} has exited (zombie)`);
  const { client } = await connectClient(next.url);
  expect(await client.request("status", {})).toMatchObject({ ok: true, openSessionWriters: 0 });
  await client.close();
}, 90_000);
