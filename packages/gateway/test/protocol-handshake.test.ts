/** connect validation against the reference CLI's captured frames (research/openclaw-wire). */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type GatewayError, parseClientFrame } from "../src/protocol/frames.js";
import { acceptConnect } from "../src/protocol/handshake.js";
import { hasScope, requiredScope } from "../src/protocol/scopes.js";

// Frames captured from openclaw@2026.9.6's CLI against a logging stub gateway (research/openclaw-wire).
const HERE = dirname(fileURLToPath(import.meta.url));
const load = (f: string) =>
  readFileSync(join(HERE, `protocol-wire-${f}`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { dir: string; frame: { params?: unknown; payload?: { nonce: string; ts: number } } });

describe("connect from the reference CLI", () => {
  it("accepts the captured token connect (no device) and grants the requested scope", () => {
    const [challenge, connect] = load("transcript.jsonl");
    const r = acceptConnect(
      connect?.frame.params,
      { token: "T0K" },
      challenge?.frame.payload as { nonce: string; ts: number },
    );
    expect(r).toMatchObject({
      protocol: 4,
      role: "operator",
      scopes: ["operator.read"],
      client: { id: "cli", mode: "cli" },
    });
  });

  it("verifies the captured Ed25519 device signature over the v3 payload, and only for its own challenge", () => {
    const [challenge, connect] = load("transcript-device-signed.jsonl");
    const ch = challenge?.frame.payload as { nonce: string; ts: number };
    expect(acceptConnect(connect?.frame.params, { token: "T0K" }, ch).deviceId).toBe(
      "08be2c75f8a805b318f1c9b11288639f8aa568ee1cfe62a47cec7474b4ab8680",
    );
    expect(() => acceptConnect(connect?.frame.params, { token: "T0K" }, { ...ch, nonce: "other" })).toThrow(
      /nonce does not match/,
    );
    const tampered = structuredClone(connect?.frame.params) as { scopes: string[] };
    tampered.scopes = ["operator.admin"];
    expect(() => acceptConnect(tampered, { token: "T0K" }, ch)).toThrow(/signature does not verify/);
  });

  it("maps failures to the details codes clients recognize", () => {
    const [challenge, connect] = load("transcript.jsonl");
    const ch = challenge?.frame.payload as { nonce: string; ts: number };
    const codeOf = (fn: () => unknown): unknown => {
      try {
        fn();
      } catch (err) {
        return (err as GatewayError).details?.code;
      }
      return undefined;
    };
    expect(codeOf(() => acceptConnect(connect?.frame.params, { token: "other" }, ch))).toBe("AUTH_TOKEN_MISMATCH");
    const old = { ...(connect?.frame.params as object), minProtocol: 1, maxProtocol: 2 };
    expect(codeOf(() => acceptConnect(old, {}, ch))).toBe("PROTOCOL_MISMATCH");
    expect(codeOf(() => acceptConnect({ minProtocol: 4, maxProtocol: 4 }, {}, ch))).toBe("INVALID_PARAMS");
  });
});

describe("frames and scopes", () => {
  it("parses req frames and explains anything else", () => {
    expect(parseClientFrame('{"type":"req","id":"1","method":"health"}')).toMatchObject({ ok: true });
    expect(parseClientFrame('{"type":"req","method":"health"}')).toMatchObject({
      ok: false,
      error: { message: "req frame needs a non-empty string id" },
    });
    expect(parseClientFrame('{"type":"req","id":"7"}')).toMatchObject({ ok: false, id: "7" });
  });

  it("admin covers write covers read; unknown methods need admin", () => {
    expect(hasScope(["operator.write"], requiredScope("health"))).toBe(true);
    expect(hasScope(["operator.read"], requiredScope("agent"))).toBe(false);
    expect(hasScope(["operator.admin"], requiredScope("sessions.delete"))).toBe(true);
    expect(requiredScope("config.set")).toBe("operator.admin");
  });
});
