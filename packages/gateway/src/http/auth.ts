/**
 * Who may call the HTTP API. With a gateway token or password: `Authorization: Bearer <secret>`, and the caller
 * is a full operator (admin), as a shared-secret WebSocket client is. Without one: loopback peers only, as the
 * gateway only binds loopback then; they may narrow their scopes with `x-tiller-scopes` (comma-separated).
 * Wrong secrets count against `gateway.auth.rateLimit` per peer address; a locked-out peer gets 429 with
 * Retry-After, before its credential is even looked at. A missing header is a 401 but costs no attempt.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { AuthRateLimit } from "../config/config-types.js";
import { isLoopback } from "../server/gateway-server.js";
import { HttpApiError } from "./errors.js";
import { AuthRateLimiter } from "./rate-limit.js";
import type { HttpCaller } from "./types.js";

/** Every operator scope: what a shared-secret bearer is granted. */
export const FULL_SCOPES: readonly string[] = ["operator.admin", "operator.write", "operator.read"];

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** `::ffff:127.0.0.1` (an IPv4 peer on a dual-stack socket) is loopback too. */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  return isLoopback(address.startsWith("::ffff:") ? address.slice(7) : address);
}

export class HttpAuth {
  private readonly limiter: AuthRateLimiter;

  constructor(
    private readonly secrets: { token?: string; password?: string },
    private readonly rateLimit: AuthRateLimit,
  ) {
    this.limiter = new AuthRateLimiter(rateLimit);
  }

  /** The caller, or an HttpApiError (401, 403, 429). */
  authenticate(req: IncomingMessage): HttpCaller {
    const remote = req.socket.remoteAddress ?? "unknown";
    const loopback = isLoopbackPeer(remote);
    const limited = !(loopback && this.rateLimit.exemptLoopback);
    if (limited) {
      const wait = this.limiter.retryAfterMs(remote);
      if (wait > 0) throw rateLimited(wait);
    }
    const { token, password } = this.secrets;
    if (!token && !password) {
      if (!loopback) {
        throw new HttpApiError(403, "this gateway has no token: only loopback clients may call it", "forbidden");
      }
      return { remote, scopes: narrowed(req.headers["x-tiller-scopes"]) };
    }
    const header = req.headers.authorization;
    const m = typeof header === "string" ? /^Bearer\s+(\S.*)$/i.exec(header.trim()) : null;
    if (!m) {
      throw new HttpApiError(
        401,
        "missing credentials: send Authorization: Bearer <gateway token>",
        "authentication_error",
        "missing_api_key",
      );
    }
    const secret = (m[1] as string).trim();
    if ((token && same(secret, token)) || (password && same(secret, password))) {
      if (limited) this.limiter.succeed(remote);
      return { remote, scopes: FULL_SCOPES };
    }
    const wait = limited ? this.limiter.fail(remote) : 0;
    if (wait > 0) throw rateLimited(wait);
    throw new HttpApiError(401, "invalid gateway token", "authentication_error", "invalid_api_key");
  }
}

function rateLimited(waitMs: number): HttpApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new HttpApiError(
    429,
    `too many failed authentication attempts: retry in ${seconds}s`,
    "rate_limit_error",
    "auth_rate_limited",
    null,
    { "retry-after": String(seconds) },
  );
}

function narrowed(header: string | string[] | undefined): readonly string[] {
  const value = Array.isArray(header) ? header.join(",") : header;
  if (!value?.trim()) return FULL_SCOPES;
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}
