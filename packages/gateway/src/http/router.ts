/**
 * The HTTP API's front door: routes `/v1/*` (the only paths the gateway hands it), checks that the endpoint is
 * enabled (`gateway.http.endpoints.*.enabled`; 404 otherwise), authenticates (auth.ts), checks the scope and the
 * method, and answers every failure in OpenAI's error shape. Models are served when either endpoint is on.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpEndpointsSettings } from "../config/config-types.js";
import { GatewayError } from "../protocol/frames.js";
import { hasScope, type Scope } from "../protocol/scopes.js";
import type { GatewayCore } from "../server/gateway-core.js";
import { HttpAuth } from "./auth.js";
import { chatCompletions } from "./chat-completions.js";
import { DeltaFanout } from "./delta-fanout.js";
import { badRequest, HttpApiError, sendError } from "./errors.js";
import { getModel, listModels } from "./models.js";
import { responses } from "./responses.js";
import { samplingExtension } from "./sampling-extension.js";
import type { EndpointContext, HttpApiOptions, HttpCaller } from "./types.js";

/** True for the paths this API owns; the gateway routes nothing else here. */
export function isHttpApiPath(url: string | undefined): boolean {
  return !!url && (url === "/v1" || url.startsWith("/v1/") || url.startsWith("/v1?"));
}

interface Route {
  method: "GET" | "POST";
  scope: Scope;
  enabled: (s: HttpEndpointsSettings) => boolean;
  /** The config key that enables it, for the 404's message. */
  key: string;
  handle: (caller: HttpCaller, req: IncomingMessage, res: ServerResponse, rest: string) => Promise<void> | void;
}

export class HttpApi {
  private readonly core: GatewayCore;
  private readonly auth: HttpAuth;
  private readonly settings: HttpEndpointsSettings;
  private readonly log: ((line: string) => void) | undefined;
  private readonly endpoints: EndpointContext;

  constructor(opts: HttpApiOptions) {
    this.core = opts.core;
    this.settings = opts.core.config.gateway.http;
    this.endpoints = {
      core: opts.core,
      fanout: new DeltaFanout(opts.core.bus),
      maxBodyBytes: this.settings.maxBodyBytes,
      maxBufferedBytes: opts.core.config.gateway.maxBufferedBytes,
    };
    // Each HTTP run's temperature / token cap reach its model calls through the run's own seam.
    opts.core.runner.use(samplingExtension);
    this.auth = new HttpAuth(opts.auth, opts.core.config.gateway.auth.rateLimit);
    this.log = opts.log;
  }

  private route(path: string): { route: Route; rest: string } | undefined {
    const models = (s: HttpEndpointsSettings): boolean => s.chatCompletions.enabled || s.responses.enabled;
    const modelsKey = "gateway.http.endpoints.chatCompletions.enabled or gateway.http.endpoints.responses.enabled";
    if (path === "/v1/chat/completions") {
      return {
        rest: "",
        route: {
          method: "POST",
          scope: "operator.write",
          enabled: (s) => s.chatCompletions.enabled,
          key: "gateway.http.endpoints.chatCompletions.enabled",
          handle: (caller, req, res) => chatCompletions(this.endpoints, caller, req, res),
        },
      };
    }
    if (path === "/v1/responses") {
      return {
        rest: "",
        route: {
          method: "POST",
          scope: "operator.write",
          enabled: (s) => s.responses.enabled,
          key: "gateway.http.endpoints.responses.enabled",
          handle: (caller, req, res) => responses(this.endpoints, caller, req, res),
        },
      };
    }
    if (path === "/v1/models") {
      return {
        rest: "",
        route: {
          method: "GET",
          scope: "operator.read",
          enabled: models,
          key: modelsKey,
          handle: (_c, _req, res) => listModels(this.core, res),
        },
      };
    }
    if (path.startsWith("/v1/models/")) {
      return {
        rest: path.slice("/v1/models/".length),
        route: {
          method: "GET",
          scope: "operator.read",
          enabled: models,
          key: modelsKey,
          handle: (_c, _req, res, rest) => {
            let id: string;
            try {
              id = decodeURIComponent(rest);
            } catch {
              throw badRequest("malformed model id in the path", "model");
            }
            getModel(this.core, id, res);
          },
        },
      };
    }
    return undefined;
  }

  /** Answers one `/v1/*` request; never throws. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const path = new URL(req.url ?? "/", "http://gateway").pathname;
      const found = this.route(path);
      if (!found?.route.enabled(this.settings)) {
        const why = found ? ` (disabled: set ${found.route.key} to true in tiller.json)` : "";
        throw new HttpApiError(
          404,
          `no such endpoint: ${req.method} ${path}${why}`,
          "invalid_request_error",
          "not_found",
        );
      }
      const caller = this.auth.authenticate(req);
      const { route, rest } = found;
      if (req.method !== route.method) {
        throw new HttpApiError(
          405,
          `${path} takes ${route.method}`,
          "invalid_request_error",
          "method_not_allowed",
          null,
          {
            allow: route.method,
          },
        );
      }
      if (!hasScope(caller.scopes, route.scope)) {
        throw new HttpApiError(403, `missing scope: ${route.scope}`, "permission_error", "missing_scope");
      }
      await route.handle(caller, req, res, rest);
    } catch (err) {
      this.fail(req, res, err);
    }
  }

  private fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    let e: HttpApiError;
    if (err instanceof HttpApiError) e = err;
    else if (err instanceof GatewayError) {
      // The gateway's own validation (an unknown agent in a session key…): the client's mistake.
      const key = (err.details as { key?: unknown } | undefined)?.key;
      e = badRequest(err.message, typeof key === "string" ? key : null);
    } else {
      this.log?.(
        `http ${req.method} ${req.url} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
      e = new HttpApiError(500, `internal error: ${err instanceof Error ? err.message : String(err)}`, "api_error");
    }
    // A 413 keeps the connection open: the rest of the refused body is being dropped (body.ts), and closing
    // now would reset a client that is still sending it before it can read the answer.
    if (res.headersSent) res.end();
    else sendError(res, e);
  }
}
