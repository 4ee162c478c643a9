/**
 * Loopback Bedrock runtime: `POST /model/{modelId}/converse-stream` answered with the binary eventstream body,
 * or with Bedrock's JSON error shape (`x-amzn-errortype` header + `{"message"}`). Every request's auth is
 * checked first: a SigV4 `Authorization` header is recomputed here with node:crypto from the test credentials
 * (canonical request, string to sign, derived key) and compared, or a bearer token is compared. A request that
 * fails the check gets Bedrock's 403 and is listed in `authFailures`, so a signing bug fails the test.
 */
import { createHash, createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { type EventStreamFrame, encodeFrame, eventFrame, exceptionFrame } from "./aws-eventstream.js";
import type { MockReply, MockScript, MockServer, RecordedRequest, SseEvent } from "./mock-server.js";

/** A scripted Bedrock stream event: `event` is the `:event-type` (or the `:exception-type`). */
export interface BedrockEvent extends SseEvent {
  event: string;
  /** Sent as `:message-type: exception`. */
  exception?: boolean;
  /** Breaks one CRC of this frame. */
  corrupt?: "prelude" | "message";
}

export interface BedrockReply extends MockReply {
  /** A complete pre-encoded body (a recorded stream). */
  body?: Buffer;
}

export type BedrockAuth =
  | { mode: "sigv4"; accessKeyId: string; secretAccessKey: string; region: string; sessionToken?: string }
  | { mode: "bearer"; token: string };

export interface BedrockMockServer extends MockServer {
  /** Why each rejected request failed the auth check (empty when every request was signed correctly). */
  authFailures: string[];
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
const rfc3986 = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const AUTH_RE =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/;

/** Recomputes the SigV4 signature of `req`; returns why it is wrong, or undefined when it matches. */
export function checkSigV4(
  req: http.IncomingMessage,
  body: Buffer,
  auth: Extract<BedrockAuth, { mode: "sigv4" }>,
  now = Date.now(),
): string | undefined {
  const m = AUTH_RE.exec(req.headers.authorization ?? "");
  if (!m) return `no SigV4 Authorization header: ${req.headers.authorization ?? "(none)"}`;
  const [, keyId, date, region, service, signedHeaders, signature] = m as unknown as string[];
  if (keyId !== auth.accessKeyId) return `credential is for access key ${keyId}`;
  if (region !== auth.region) return `credential scope region ${region}, expected ${auth.region}`;
  if (service !== "bedrock") return `credential scope service ${service}, expected bedrock`;
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  if (!/^\d{8}T\d{6}Z$/.test(amzDate) || !amzDate.startsWith(date as string)) return `bad x-amz-date ${amzDate}`;
  const signedAt = Date.UTC(
    Number(amzDate.slice(0, 4)),
    Number(amzDate.slice(4, 6)) - 1,
    Number(amzDate.slice(6, 8)),
    Number(amzDate.slice(9, 11)),
    Number(amzDate.slice(11, 13)),
    Number(amzDate.slice(13, 15)),
  );
  if (Math.abs(now - signedAt) > 15 * 60_000) return `x-amz-date ${amzDate} is more than 15 minutes off`;
  const names = (signedHeaders as string).split(";");
  for (const required of ["host", "x-amz-date", ...(auth.sessionToken ? ["x-amz-security-token"] : [])]) {
    if (!names.includes(required)) return `header ${required} is not signed (${signedHeaders})`;
  }
  if (auth.sessionToken && req.headers["x-amz-security-token"] !== auth.sessionToken) return "wrong session token";
  const url = new URL(req.url ?? "/", "http://x");
  // Non-S3 services sign the path with each segment encoded once more than it was sent.
  const canonicalUri = url.pathname
    .split("/")
    .map((segment) => rfc3986(segment))
    .join("/");
  const canonicalQuery = [...url.searchParams.entries()]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a, b], [c, d]) =>
      a === c ? (b as string).localeCompare(d as string) : (a as string) < (c as string) ? -1 : 1,
    )
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  let canonicalHeaders = "";
  for (const name of names) {
    const value = req.headers[name];
    if (value === undefined) return `signed header ${name} was not sent`;
    canonicalHeaders += `${name}:${String(value).trim().replace(/\s+/g, " ")}\n`;
  }
  const payloadHash = sha256(body);
  const declared = req.headers["x-amz-content-sha256"];
  if (declared !== undefined && declared !== payloadHash) return "x-amz-content-sha256 does not match the body";
  const canonicalRequest = [
    req.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    payloadHash,
  ].join("\n");
  const scope = `${date}/${region}/bedrock/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonicalRequest)].join("\n");
  const key = hmac(
    hmac(hmac(hmac(`AWS4${auth.secretAccessKey}`, date as string), region as string), "bedrock"),
    "aws4_request",
  );
  const expected = createHmac("sha256", key).update(stringToSign).digest("hex");
  return expected === signature ? undefined : `signature mismatch for canonical request:\n${canonicalRequest}`;
}

function frameOf(e: SseEvent): EventStreamFrame {
  const b = e as BedrockEvent;
  if (b.exception) {
    const message = (b.data as { message?: string }).message ?? String(b.data);
    return exceptionFrame(b.event, message);
  }
  return eventFrame(b.event ?? "unknown", b.data);
}

const JSON_ERROR = "application/json";

export async function startBedrockMock(script: MockScript, auth: BedrockAuth): Promise<BedrockMockServer> {
  const requests: RecordedRequest[] = [];
  const authFailures: string[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let closedWaiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      let body: unknown = raw.toString("utf8");
      try {
        body = JSON.parse(body as string);
      } catch {
        // keep the text
      }
      const reason =
        auth.mode === "sigv4"
          ? checkSigV4(req, raw, auth)
          : req.headers.authorization === `Bearer ${auth.token}`
            ? undefined
            : `expected bearer token, got ${req.headers.authorization ?? "(none)"}`;
      if (reason) {
        authFailures.push(reason);
        res.writeHead(403, { "content-type": JSON_ERROR, "x-amzn-errortype": "InvalidSignatureException" });
        res.end(JSON.stringify({ message: `The request signature we calculated does not match: ${reason}` }));
        return;
      }
      const recorded: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(recorded);
      const index = requests.length - 1;
      const reply = (typeof script === "function" ? script(recorded, index) : script[index]) as BedrockReply;
      if (!reply) {
        res.writeHead(500, { "content-type": JSON_ERROR, "x-amzn-errortype": "InternalServerException" });
        res.end(JSON.stringify({ message: `mock: no reply scripted for request ${index}` }));
        return;
      }
      void respond(reply, req, res).catch(() => res.destroy());
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  async function respond(reply: BedrockReply, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const status = reply.status ?? 200;
    const requestId = { "x-amzn-requestid": "8c0b2f7e-0000-4000-8000-000000000001" };
    if (reply.body) {
      res.writeHead(status, { "content-type": "application/vnd.amazon.eventstream", ...requestId, ...reply.headers });
      res.end(reply.body);
      return;
    }
    if (!reply.events) {
      res.writeHead(status, { "content-type": JSON_ERROR, ...requestId, ...reply.headers });
      res.end(reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? ""));
      return;
    }
    res.writeHead(status, { "content-type": "application/vnd.amazon.eventstream", ...requestId, ...reply.headers });
    const events = reply.events;
    const stopAt = Math.min(events.length, reply.cutAfter ?? Number.POSITIVE_INFINITY, reply.hangAfter ?? Infinity);
    const batch: Buffer[] = [];
    for (let i = 0; i < stopAt; i++) {
      const e = events[i] as BedrockEvent;
      batch.push(encodeFrame(frameOf(e), e.corrupt));
      if (reply.delayMs) {
        res.write(Buffer.concat(batch.splice(0)));
        await new Promise((r) => setTimeout(r, reply.delayMs));
      }
    }
    if (batch.length > 0) res.write(Buffer.concat(batch));
    if (reply.cutAfter !== undefined && reply.cutAfter < events.length) {
      // Half a frame, then the connection drops.
      const next = encodeFrame(frameOf(events[reply.cutAfter] as SseEvent));
      res.write(next.subarray(0, Math.ceil(next.length / 2)));
      await new Promise((r) => setTimeout(r, 10));
      res.socket?.destroy();
      return;
    }
    if (reply.hangAfter !== undefined && reply.hangAfter < events.length) {
      await new Promise<void>((resolve) => req.socket.once("close", () => resolve()));
      const waiters = closedWaiters;
      closedWaiters = [];
      for (const w of waiters) w();
      return;
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: url,
    requests,
    authFailures,
    clientClosed: () => new Promise<void>((resolve) => closedWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
