/**
 * Every frame captured from the real OpenClaw CLI (openclaw@2026.9.6: `openclaw agent`, `gateway call health`,
 * a device-signed connect) and from the stub gateway it talked to is valid under the gateway's protocol schema:
 * the CLI's connect/agent/agents.list/health requests, hello-ok, both `agent` answers and every event payload.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { FrameChecker } from "./protocol-frame-checker.js";

const here = dirname(fileURLToPath(import.meta.url));

function transcript(name: string): { conn: number; dir: string; frame: unknown }[] {
  return readFileSync(join(here, name), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));
}

describe("frames captured from the reference CLI", () => {
  for (const name of ["protocol-wire-transcript.jsonl", "protocol-wire-transcript-device-signed.jsonl"]) {
    it(`${name}: every frame, params, result and event payload matches the schema`, () => {
      const lines = transcript(name);
      const byConn = new Map<number, FrameChecker>();
      for (const l of lines) {
        let c = byConn.get(l.conn);
        if (!c) byConn.set(l.conn, (c = new FrameChecker()));
        c.check(l.frame, `conn ${l.conn} ${l.dir}`);
      }
      const checkers = [...byConn.values()];
      expect(checkers.flatMap((c) => c.problems)).toEqual([]);
      // Not vacuous: the requests, answers and events were checked against their own schemas.
      expect(checkers.reduce((n, c) => n + c.checkedPayloads, 0)).toBe(lines.length);
    });
  }

  it("a frame that breaks the schema is reported, naming the key", () => {
    const c = new FrameChecker();
    c.check({ type: "req", id: "1", method: "agent", params: { message: "hi" } });
    c.check({
      type: "req",
      id: "2",
      method: "connect",
      params: { minProtocol: 4, maxProtocol: 4, client: { id: "cli" } },
    });
    c.check({
      type: "event",
      event: "agent",
      payload: { runId: "r", seq: 0, stream: "lifecycle", ts: 1, data: { phase: "start" } },
    });
    expect(c.problems).toHaveLength(3);
    expect(c.problems[0]).toMatch(/agent params: idempotencyKey: missing/);
    expect(c.problems[1]).toMatch(/connect params: client\.mode: missing/);
    expect(c.problems[2]).toMatch(/agent event/);
  });
});
