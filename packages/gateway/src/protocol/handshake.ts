/**
 * The connect handshake: protocol negotiation, shared-secret auth and optional device identity
 * (Ed25519 over the challenge, payload v3 or v2 as the reference clients sign it).
 */
import { createHash, createPublicKey, timingSafeEqual, verify } from "node:crypto";
import { GatewayError, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION } from "./frames.js";
import { parseParams } from "./params.js";
import {
  type Challenge,
  type ClientInfo,
  type ConnectParams,
  ConnectParamsSchema,
  type DeviceIdentity,
} from "./schema/handshake.js";
import { compileSchema } from "./schema/validate.js";

export type { Challenge, ClientInfo, ConnectParams, DeviceIdentity } from "./schema/handshake.js";

const CONNECT = compileSchema(ConnectParamsSchema);

/** What the server requires from a client. Both unset: no shared secret (loopback only). */
export interface AuthPolicy {
  token?: string;
  password?: string;
}

export interface HandshakeResult {
  protocol: number;
  role: string;
  scopes: string[];
  client: ClientInfo;
  deviceId?: string;
}

/** Validates `connect` params against the policy and the challenge; throws GatewayError on any failure. */
export function acceptConnect(params: unknown, policy: AuthPolicy, challenge: Challenge): HandshakeResult {
  const p = parseParams("connect", CONNECT, params);
  const protocol = negotiate(p.minProtocol, p.maxProtocol);
  checkSecret(p.auth, policy);
  const role = p.role ?? "operator";
  const scopes = (p.scopes ?? []).filter((s): s is string => typeof s === "string");
  const granted = scopes.length > 0 ? scopes : ["operator.read", "operator.write"];
  let deviceId: string | undefined;
  if (p.device) deviceId = verifyDevice(p, role, granted, challenge);
  return { protocol, role, scopes: granted, client: p.client, deviceId };
}

function negotiate(min: number, max: number): number {
  const hi = Math.min(max, PROTOCOL_VERSION);
  const lo = Math.max(min, MIN_PROTOCOL_VERSION);
  if (min > max || hi < lo) {
    throw new GatewayError(
      "INVALID_REQUEST",
      `protocol mismatch: gateway speaks v${MIN_PROTOCOL_VERSION}..v${PROTOCOL_VERSION}, client asked v${min}..v${max}`,
      { code: "PROTOCOL_MISMATCH", expectedProtocol: PROTOCOL_VERSION, minProtocol: MIN_PROTOCOL_VERSION },
    );
  }
  return hi;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function checkSecret(auth: ConnectParams["auth"], policy: AuthPolicy): void {
  if (!policy.token && !policy.password) return;
  const token = typeof auth?.token === "string" ? auth.token : undefined;
  const password = typeof auth?.password === "string" ? auth.password : undefined;
  if (policy.token && token !== undefined && same(token, policy.token)) return;
  if (policy.password && password !== undefined && same(password, policy.password)) return;
  if (policy.token && token !== undefined) {
    throw new GatewayError("INVALID_REQUEST", "unauthorized: gateway token mismatch", {
      code: "AUTH_TOKEN_MISMATCH",
      recommendedNextStep: "pass the gateway's token (--token or TILLER_GATEWAY_TOKEN)",
    });
  }
  if (policy.password && password !== undefined) {
    throw new GatewayError("INVALID_REQUEST", "unauthorized: gateway password mismatch", {
      code: "AUTH_PASSWORD_MISMATCH",
    });
  }
  throw new GatewayError("INVALID_REQUEST", "unauthorized: gateway token missing", {
    code: "AUTH_TOKEN_MISSING",
    recommendedNextStep: "pass the gateway's token (--token or TILLER_GATEWAY_TOKEN)",
  });
}

function b64url(s: string): Buffer {
  return Buffer.from(s.replace(/-/g, "+").replace(/_/g, "/"), "base64");
}

/** The string a client signs (v3 binds platform and device family; v2 does not). */
export function devicePayload(
  version: "v2" | "v3",
  p: ConnectParams,
  role: string,
  scopes: readonly string[],
  device: DeviceIdentity,
): string {
  const parts = [
    version,
    device.id,
    p.client.id,
    p.client.mode,
    role,
    scopes.join(","),
    String(device.signedAt),
    p.auth?.token ?? "",
    device.nonce,
  ];
  if (version === "v3")
    parts.push((p.client.platform ?? "").toLowerCase(), (p.client.deviceFamily ?? "").toLowerCase());
  return parts.join("|");
}

function deviceError(message: string, code: string): GatewayError {
  return new GatewayError("INVALID_REQUEST", `device identity rejected: ${message}`, { code });
}

function verifyDevice(p: ConnectParams, role: string, scopes: readonly string[], challenge: Challenge): string {
  const d = p.device as DeviceIdentity;
  if (d.nonce !== challenge.nonce)
    throw deviceError("nonce does not match the challenge", "DEVICE_AUTH_NONCE_MISMATCH");
  const raw = b64url(d.publicKey);
  if (raw.length !== 32) throw deviceError("public key must be 32 raw Ed25519 bytes", "DEVICE_AUTH_INVALID");
  if (createHash("sha256").update(raw).digest("hex") !== d.id) {
    throw deviceError("device id is not the SHA-256 of the public key", "DEVICE_AUTH_INVALID");
  }
  const key = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: d.publicKey.replace(/=+$/, "") },
    format: "jwk",
  });
  const sig = b64url(d.signature);
  // The client signs with the scopes it asked for (not the defaults we may have granted).
  const asked = Array.isArray(p.scopes) ? p.scopes : scopes;
  for (const version of ["v3", "v2"] as const) {
    const payload = Buffer.from(devicePayload(version, p, role, asked, d));
    if (verify(null, payload, key, sig)) return d.id;
  }
  throw deviceError("signature does not verify over the challenge", "DEVICE_AUTH_INVALID");
}
