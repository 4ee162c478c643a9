// biome-ignore-all lint/suspicious/noExplicitAny: wire payloads are inspected structurally.
/**
 * A client that stops reading is bounded, in every text view, and stalls neither the runs nor other clients: the
 * runs end ok, a client of the same view that reads gets every event of them gap-free and each whole reply, and the
 * paused client either sees a gap in its `seq` (dropped deltas) or is closed 1013, having received no more than the
 * kernel's socket buffers and the gateway's bound can hold (twice `maxBufferedBytes` and two frames).
 *
 * Deterministic rather than load-sensitive: the paused client stops reading before the runs start, and they send it
 * more than that in every view, counted from the machine's own TCP buffer limits (a paused loopback client takes
 * megabytes into the kernel before the gateway's send buffer grows at all; before this file, a delta-only client's
 * whole run fitted there, so it was never dropped or cut off). A paused client that keeps sending requests is
 * bounded the same way (responses are never dropped, so it is closed 1013).
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { MockServer } from "../../ai/test/helpers/mock-server.js";
import type { TextView } from "../src/protocol/schema/events.js";
import { MAX_BURST_CHARS } from "../src/run/event-bridge.js";
import {
  bigDelta,
  connectClient,
  type GatewayProc,
  kernelBufferBytes,
  makeHome,
  removeHome,
  spawnGateway,
  startMockProvider,
  until,
} from "./gateway-harness.js";
import { FrameChecker } from "./protocol-frame-checker.js";

/**
 * The gateway's `maxBufferedBytes` here: above any one frame the runs send (a bound below a frame's size cannot
 * tell a client that reads a large frame from one that stopped; see Connection), far below what they send in all.
 */
const MAX_BUFFERED = 1024 * 1024;

const KERNEL_BYTES = kernelBufferBytes();
/** What the kernel and the gateway's bound hold for a client that reads nothing. */
const HELD_AT_MOST = KERNEL_BYTES + 2 * MAX_BUFFERED;
/**
 * Each run's reply: 128 deltas of 4 KB (512 KB), so the largest frame (a chat delta's cumulative `message` and
 * its `deltaText`, or a snapshot's `text` and `delta`: 1.5× the reply at most) stays under the bound.
 */
const DELTAS = 128;
const DELTA_SIZE = 4096;
const REPLY = Array.from({ length: DELTAS }, (_, i) => bigDelta(i, DELTA_SIZE))
  .join("")
  .trim();
/** Runs in a row: every view carries at least each reply in droppable frames, so together half again what can be held. */
const RUNS = Math.ceil((1.5 * HELD_AT_MOST) / REPLY.length);

let mock: MockServer;
let gw: GatewayProc;

beforeAll(async () => {
  mock = await startMockProvider();
  gw = await spawnGateway(
    makeHome({ mockBaseUrl: mock.baseUrl, config: { gateway: { maxBufferedBytes: MAX_BUFFERED } } }),
  );
});

afterAll(async () => {
  await gw?.stop();
  await mock?.close();
  if (gw) removeHome(gw.home);
});

/** What a client announces at connect to get each view (see server/text-view.ts). */
const VIEWS: { view: TextView; protocol: number; id: string; mode: string; caps: string[] }[] = [
  { view: "deltas", protocol: 4, id: "tiller-web", mode: "webchat", caps: ["tiller.delta-only"] },
  { view: "answer", protocol: 4, id: "cli", mode: "cli", caps: [] },
  { view: "chat", protocol: 4, id: "openclaw-tui", mode: "ui", caps: [] },
  { view: "snapshots", protocol: 3, id: "openclaw-tui", mode: "ui", caps: [] },
];

/** A bare client (any protocol) counting what its socket receives; its socket can be paused from the start. */
interface RawClient {
  ws: WebSocket;
  frames: any[];
  bytes: number;
  largestFrame: number;
  closeCode: number;
  checker: FrameChecker;
  send(method: string, params: unknown, id?: string): string;
  request(method: string, params: unknown): Promise<any>;
  pause(): void;
  resume(): void;
}

async function rawClient(v: (typeof VIEWS)[number]): Promise<RawClient> {
  const ws = new WebSocket(gw.url, { maxPayload: 256 * 1024 * 1024 });
  const c: RawClient = {
    ws,
    frames: [],
    bytes: 0,
    largestFrame: 0,
    closeCode: 0,
    checker: new FrameChecker(),
    send(method, params, id = randomUUID()) {
      ws.send(JSON.stringify({ type: "req", id, method, params }));
      return id;
    },
    async request(method, params) {
      const id = c.send(method, params);
      await until(() => c.frames.some((f) => f.type === "res" && f.id === id), 30_000, `${method} answered`);
      return c.frames.find((f) => f.type === "res" && f.id === id);
    },
    pause: () => (ws as any)._socket.pause(),
    resume: () => (ws as any)._socket.resume(),
  };
  ws.on("message", (d: Buffer) => {
    c.bytes += d.length;
    if (d.length > c.largestFrame) c.largestFrame = d.length;
    const f = JSON.parse(String(d));
    c.checker.check(f, "in");
    c.frames.push(f);
  });
  ws.on("close", (code) => {
    c.closeCode = code;
  });
  ws.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  await until(() => c.frames.some((f) => f.event === "connect.challenge"), 15_000, "connect.challenge");
  const hello = await c.request("connect", {
    minProtocol: v.protocol,
    maxProtocol: v.protocol,
    client: { id: v.id, version: "1.0.0", platform: "linux", mode: v.mode },
    caps: v.caps,
    auth: {},
    role: "operator",
    scopes: ["operator.admin"],
  });
  expect(hello.ok).toBe(true);
  return c;
}

const runEvents = (c: RawClient, runId: string, event: "agent" | "chat") =>
  c.frames.filter((f) => f.event === event && f.payload.runId === runId).map((f) => f.payload);

/** The reply as the run's `assistant` deltas carry it (in every view, each piece of the text once). */
function rebuilt(c: RawClient, runId: string): string {
  return runEvents(c, runId, "agent")
    .filter((p) => p.stream === "assistant")
    .map((p) => p.data.delta)
    .join("")
    .trim();
}

describe("a client that stops reading", () => {
  it.each(VIEWS)(
    "in the $view view never stalls the runs or others and is bounded: dropped or cut off",
    async (v) => {
      const sessionKey = `slow-${v.view}-${randomUUID()}`;
      const reader = await rawClient(v);
      expect((await reader.request("sessions.subscribe", { key: sessionKey })).ok).toBe(true);
      const slow = await rawClient(v);
      expect((await slow.request("sessions.subscribe", { key: sessionKey })).ok).toBe(true);
      // It stops reading before the runs send anything, so the kernel's buffers start empty (and stay small).
      slow.pause();

      const { client: control } = await connectClient(gw.url);
      const runIds: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const runId = randomUUID();
        runIds.push(runId);
        const final: any = await control.request(
          "agent",
          { message: `[big:${DELTAS}:${DELTA_SIZE}]`, idempotencyKey: runId, sessionKey },
          { expectFinal: true, timeoutMs: 60_000 },
        );
        expect(final.status).toBe("ok");
      }
      expect(((await control.request("status", {})) as any).activeRuns).toEqual([]);
      await control.close();

      // The client that reads got all of it: every event of every run in order, and each whole reply.
      const last = runIds.at(-1) as string;
      await until(
        () => runEvents(reader, last, "chat").some((p) => p.state === "final"),
        60_000,
        "reader's last final",
      );
      for (const runId of runIds) {
        const seqs = runEvents(reader, runId, "agent").map((p) => p.seq);
        expect(seqs).toEqual(seqs.map((_, i) => i + 1));
        expect(runEvents(reader, runId, "agent").at(-1)).toMatchObject({ stream: "lifecycle", data: { phase: "end" } });
        expect(rebuilt(reader, runId)).toBe(REPLY);
        const chat = runEvents(reader, runId, "chat");
        // The `answer` view's final leaves the text to the `agent` answer (which went to the client that asked).
        if (v.view !== "answer") expect(chat.at(-1).message.content[0].text.trim()).toBe(REPLY);
        if (v.view === "chat" || v.view === "snapshots") {
          const deltas = chat.filter((p) => p.state === "delta");
          expect(deltas.length).toBeGreaterThan(0);
          expect(deltas.map((p) => p.deltaText).join("")).toBe(deltas.at(-1).message.content[0].text);
        }
      }
      expect(reader.largestFrame).toBeLessThan(MAX_BUFFERED);
      expect(reader.checker.problems).toEqual([]);
      expect(reader.closeCode).toBe(0);

      // The paused client reads what was kept for it: the kernel's buffers, then the gateway's, then (if it was
      // cut off) the close frame.
      slow.resume();
      await until(
        () => slow.closeCode !== 0 || runEvents(slow, last, "chat").some((p) => p.state === "final"),
        60_000,
        "the paused client drained",
      );
      const gapless = runIds.every((runId) => {
        const seqs = runEvents(slow, runId, "agent").map((p) => p.seq);
        return seqs.length > 0 && seqs.every((q, i) => q === i + 1);
      });
      expect(slow.closeCode === 1013 || !gapless).toBe(true);
      if (slow.closeCode === 0) {
        // Only deltas are dropped: each run's end and final still came, the final with the whole reply once the
        // client had missed deltas (in the `answer` view too: the deltas it has cannot rebuild the text).
        for (const runId of runIds) {
          expect(runEvents(slow, runId, "agent").at(-1)).toMatchObject({ stream: "lifecycle", data: { phase: "end" } });
          expect(runEvents(slow, runId, "chat").at(-1)).toMatchObject({ state: "final" });
        }
        expect(runEvents(slow, last, "chat").at(-1).message.content[0].text.trim()).toBe(REPLY);
      }
      // All it received was held for it while it read nothing: the kernel's part and the gateway's bound.
      expect(slow.bytes).toBeLessThanOrEqual(HELD_AT_MOST + 2 * slow.largestFrame + 64 * 1024);
      // …which is less than the runs sent this view: the bound, not the kernel, decided what it got.
      expect(HELD_AT_MOST + 2 * slow.largestFrame).toBeLessThan(reader.bytes);
      if (process.env.SLOW_DEBUG)
        console.log(v.view, { close: slow.closeCode, gapless, slow: slow.bytes, reader: reader.bytes });
      expect(slow.checker.problems).toEqual([]);
      slow.ws.terminate();
      reader.ws.terminate();
    },
    240_000,
  );

  it("a client that reads is never cut off for a frame larger than the bound, nor for the frames after it", async () => {
    // A reply larger than the kernel's buffers and twice the bound: its chat final and the `agent` answer are each
    // one frame of it, the second queued while the socket still writes the first.
    const deltas = Math.ceil((2 * HELD_AT_MOST) / DELTA_SIZE);
    const reply = Array.from({ length: deltas }, (_, i) => bigDelta(i, DELTA_SIZE))
      .join("")
      .trim();
    const { client, events } = await connectClient(gw.url, { caps: ["tiller.delta-only"] });
    let closed = 0;
    client.ws.once("close", (code) => {
      closed = code;
    });
    const runId = randomUUID();
    const final: any = await client.request(
      "agent",
      { message: `[big:${deltas}:${DELTA_SIZE}]`, idempotencyKey: runId, sessionKey: `big-${runId}` },
      { expectFinal: true, timeoutMs: 120_000 },
    );
    expect(final.status).toBe("ok");
    expect(final.result.payloads[0].text.trim()).toBe(reply);
    // Its deltas may be dropped when it falls behind the mock's megabytes (it is then behind by more than the
    // bound); the end, the final with the whole text and the answers after them never are.
    const ev = events
      .filter((e) => e.event === "agent" && (e.payload as any).runId === runId)
      .map((e) => e.payload as any);
    expect(ev.at(-1)).toMatchObject({ stream: "lifecycle", data: { phase: "end" } });
    // However much of the stream one event-loop turn takes in (megabytes under load), a burst stays small: a frame
    // over the bound would make a client that reads look like one that stopped (regression: cut off 1013 under load).
    const bursts = ev.filter((p) => p.stream === "assistant").map((p) => p.data.delta.length);
    expect(bursts.length).toBeGreaterThan(0);
    expect(Math.max(...bursts)).toBeLessThan(MAX_BURST_CHARS + DELTA_SIZE);
    const chatFinal = events.find((e) => e.event === "chat" && (e.payload as any).state === "final")?.payload as any;
    expect(chatFinal.message.content[0].text.trim()).toBe(reply);
    expect(await client.request("health", {})).toMatchObject({ ok: true });
    expect(closed).toBe(0);
    await client.close();
  }, 240_000);

  it("but keeps sending requests is cut off 1013 (responses are never dropped), and others are served", async () => {
    const slow = await rawClient(VIEWS[2] as (typeof VIEWS)[number]);
    slow.pause();
    // Twice what the kernel and the bound can hold, in `health` answers (each a few hundred bytes).
    const other = (await connectClient(gw.url)).client;
    const size = JSON.stringify(await other.request("health", {})).length;
    const requests = Math.ceil((2 * HELD_AT_MOST) / size);
    for (let i = 0; i < requests; i++) slow.send("health", {}, `h${i}`);
    // The last request starts a run, which a reader of its session sees begin once the gateway has handled
    // every request before it (a connection's requests are handled in order).
    const sessionKey = `slow-requests-${randomUUID()}`;
    const runId = randomUUID();
    const { client: reader, events } = await connectClient(gw.url);
    await reader.request("sessions.subscribe", { key: sessionKey });
    slow.send("agent", { message: "marker", idempotencyKey: runId, sessionKey });
    await until(
      () => events.some((e) => e.event === "agent" && (e.payload as any).runId === runId),
      120_000,
      "the marker run started",
    );
    expect(await reader.request("agent.wait", { runId, timeoutMs: 60_000 })).toMatchObject({ status: "ok" });
    expect(await other.request("health", {}, { timeoutMs: 30_000 })).toMatchObject({ ok: true });

    slow.resume();
    await until(() => slow.closeCode !== 0, 60_000, "the paused client's close");
    expect(slow.closeCode).toBe(1013);
    const answered = slow.frames.filter((f) => f.type === "res" && /^h\d+$/.test(f.id)).length;
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThan(requests);
    expect(slow.bytes).toBeLessThanOrEqual(HELD_AT_MOST + 64 * 1024);
    await reader.close();
    await other.close();
  }, 240_000);
});
