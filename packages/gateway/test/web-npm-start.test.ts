/**
 * `npm start` (packages/gateway/src/main.ts, what the root `start` script runs once built) prints the web
 * page's address, and that address serves the page: a person starting the gateway finds the page from its
 * output alone.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { makeHome, ROOT, removeHome } from "./gateway-harness.js";
import { ensureWebBuilt } from "./web-harness.js";

const MAIN = join(ROOT, "packages/gateway/src/main.ts");
const homes: string[] = [];

afterAll(() => {
  for (const h of homes) removeHome(h);
});

/** Starts main.ts on `home`, resolves with its output once it has printed the hint, and stops it after `use`. */
async function startMain(home: string, env: Record<string, string>, use: (out: string) => Promise<void>) {
  const proc = spawn(process.execPath, ["--conditions=tiller-source", "--import", "tsx", MAIN], {
    cwd: ROOT,
    env: { ...process.env, TILLER_HOME: home, TILLER_GATEWAY_PORT: "0", TILLER_GATEWAY_TOKEN: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((r) => proc.once("exit", (code) => r(code)));
  let out = "";
  let err = "";
  proc.stderr.on("data", (d: Buffer) => {
    err += String(d);
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start printed no hint: ${out}${err}`)), 45_000);
      proc.stdout.on("data", (d: Buffer) => {
        out += String(d);
        if (out.includes("Ctrl-C stops the gateway.")) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.once("exit", () => reject(new Error(`npm start exited: ${out}${err}`)));
    });
    await use(out);
  } finally {
    proc.kill("SIGTERM");
    await exited;
  }
}

describe("npm start", () => {
  it("prints the web page's address, which serves the page; with a token it says to log in", async () => {
    await ensureWebBuilt();
    const home = makeHome();
    homes.push(home);
    await startMain(home, {}, async (out) => {
      const m = /web page\s+(http:\/\/127\.0\.0\.1:(\d+)\/)(.*)/.exec(out);
      expect(m, out).not.toBeNull();
      expect(out).toContain(`listening  ws://127.0.0.1:${m?.[2]}`);
      expect(m?.[3]).not.toMatch(/token/);
      const page = await fetch(m?.[1] as string);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('src="app.js"');
    });
    const tokenHome = makeHome();
    homes.push(tokenHome);
    await startMain(tokenHome, { TILLER_GATEWAY_TOKEN: "s3cret" }, async (out) => {
      expect(out).toMatch(/web page\s+http:\/\/127\.0\.0\.1:\d+\/\s+\(log in with the gateway token\)/);
      expect(out).not.toContain("s3cret");
    });
  }, 120_000);
});
