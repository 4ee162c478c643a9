/**
 * A gap in the event `seq` makes the page rebuild the transcript from `chat.history` instead of showing a
 * broken one. The real gateway only skips frames for a client whose socket buffer is full, which a browser
 * on loopback never lets happen on cue, so the peer here is a scripted protocol server (real WebSocket, the
 * gateway's frame shapes) that skips two frames; the page is served by the gateway's own static handler.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import type { EventFrame, RequestFrame } from "../src/protocol/frames.js";
import { WebAssets } from "../src/web/static-handler.js";
import { type Browser, ensureWebBuilt, launchBrowser, waitConnected } from "./web-harness.js";

const KEY = "agent:main:main";
let server: Server;
let wss: WebSocketServer;
let port = 0;
let browser: Browser;
const historyCalls: number[] = [];
let peer: WebSocket | undefined;
let seq = 0;

function event(ws: WebSocket, name: string, payload: unknown, frameSeq?: number): void {
  const frame: EventFrame = { type: "event", event: name, payload, ...(frameSeq ? { seq: frameSeq } : {}) };
  ws.send(JSON.stringify(frame));
}

function agent(ws: WebSocket, frameSeq: number, runSeq: number, stream: string, data: Record<string, unknown>): void {
  event(ws, "agent", { runId: "run-1", seq: runSeq, stream, ts: Date.now(), data, sessionKey: KEY }, frameSeq);
}

beforeAll(async () => {
  await ensureWebBuilt();
  const web = new WebAssets();
  server = createServer((req, res) => {
    if (!web.handle(req, res)) res.writeHead(404).end();
  });
  wss = new WebSocketServer({ server });
  wss.on("connection", (ws) => {
    peer = ws;
    event(ws, "connect.challenge", { nonce: "n", ts: Date.now() });
    ws.on("message", (raw) => {
      const req = JSON.parse(String(raw)) as RequestFrame;
      const answer = (payload: unknown) => ws.send(JSON.stringify({ type: "res", id: req.id, ok: true, payload }));
      if (req.method === "connect") answer({ type: "hello-ok", protocol: 4, auth: { role: "operator", scopes: [] } });
      else if (req.method === "sessions.list") answer({ sessions: [{ key: KEY, agentId: "main" }] });
      else if (req.method === "models.list") answer({ models: [] });
      else if (req.method === "chat.history") {
        historyCalls.push(Date.now());
        const messages =
          historyCalls.length === 1
            ? []
            : [
                { role: "user", content: [{ type: "text", text: "the question" }] },
                { role: "assistant", content: [{ type: "text", text: "the whole reply, from history" }] },
              ];
        answer({ sessionKey: KEY, messages });
      } else answer({ ok: true });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  port = (server.address() as AddressInfo).port;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const c of wss?.clients ?? []) c.terminate();
  await new Promise<void>((r) => wss.close(() => r()));
  await new Promise<void>((r) => server.close(() => r()));
});

describe("web page: seq gap", () => {
  it("reloads history when event frames were skipped", async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://127.0.0.1:${port}/`);
    await waitConnected(page);
    await expect.poll(() => historyCalls.length, { timeout: 20_000 }).toBe(1);
    const ws = peer as WebSocket;
    agent(ws, ++seq, 1, "lifecycle", { phase: "start" });
    agent(ws, ++seq, 2, "assistant", { text: "the whole", delta: "the whole" });
    const log = page.getByRole("log");
    await log.getByText("the whole").waitFor({ timeout: 20_000 });
    expect(historyCalls.length).toBe(1);
    // Frames 3 and 4 never arrive.
    seq += 2;
    agent(ws, ++seq, 5, "assistant", { text: "the whole reply", delta: " reply" });
    await expect.poll(() => historyCalls.length, { timeout: 20_000 }).toBe(2);
    await log.getByText("the whole reply, from history").waitFor({ timeout: 20_000 });
    await log.getByText("the question").waitFor();
    await page.close();
  }, 60_000);
});
