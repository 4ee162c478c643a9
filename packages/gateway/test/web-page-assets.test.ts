/**
 * The page as the gateway ships and serves it: the bundle stays small and holds no server code, the
 * static handler answers `/` and the asset paths with a strict CSP and leaves every other path alone,
 * and the page's view of the `agent` event is one the gateway's own payload satisfies (type-checked).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEventPayload as GatewayAgentEvent } from "../src/run/event-bus.js";
import { WEB_DIST_DIR, WebAssets } from "../src/web/static-handler.js";
import type { AgentEventPayload as PageAgentEvent } from "../web/src/types.js";
import { ensureWebBuilt } from "./web-harness.js";

// Compile-time: a gateway `agent` event must be readable as the page's type (tsc fails otherwise).
const conforms = (e: GatewayAgentEvent): PageAgentEvent => e;

let server: Server;
let base: string;

beforeAll(async () => {
  await ensureWebBuilt();
  const web = new WebAssets();
  server = createServer((req, res) => {
    if (web.handle(req, res)) return;
    res.writeHead(418);
    res.end("not mine");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

describe("web page assets", () => {
  it("bundles under 150 KB of gzipped JavaScript with no server code in it", () => {
    const js = readFileSync(join(WEB_DIST_DIR, "app.js"));
    const gz = gzipSync(js).length;
    expect(gz).toBeLessThan(150 * 1024);
    const text = js.toString("utf8");
    for (const serverOnly of [
      "better-sqlite3",
      "node:crypto",
      "SessionManager",
      "WebSocketServer",
      "timingSafeEqual",
    ]) {
      expect(text).not.toContain(serverOnly);
    }
    expect(conforms({ runId: "r", seq: 1, stream: "tool", ts: 0, data: {}, sessionKey: "k" }).stream).toBe("tool");
  });

  it("serves / and the assets with a strict CSP, and leaves other paths to the gateway", async () => {
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get("content-type")).toMatch(/text\/html/);
    expect(index.headers.get("content-security-policy")).toMatch(/default-src 'self'/);
    expect(await index.text()).toContain('src="app.js"');
    const js = await fetch(`${base}/app.js?v=1`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/javascript/);
    const head = await fetch(`${base}/styles.css`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    for (const other of ["/v1/models", "/health", "/../package.json", "/web-dist/app.js"]) {
      expect((await fetch(`${base}${other}`)).status).toBe(418);
    }
    expect((await fetch(`${base}/`, { method: "POST" })).status).toBe(418);
  });
});
