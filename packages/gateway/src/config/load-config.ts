/**
 * Loads $TILLER_HOME/tiller.json (JSON with comments), validates it and fills defaults. Every error names
 * the file and the dotted key, e.g. `tiller.json: gateway.port: expected an integer 0..65535, got "x"`.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import {
  type AgentEntry,
  type AuthRateLimit,
  DEFAULT_PORT,
  DEFAULT_TIMEOUT_SECONDS,
  DROP_POLICIES,
  type HttpEndpointsSettings,
  QUEUE_MODES,
  THINKING_SETTINGS,
  type TillerConfig,
} from "./config-types.js";
import { ConfigError, parseJsonc } from "./jsonc.js";

/** $TILLER_HOME, else ~/.tiller: the same home the CLI uses. */
export function resolveTillerHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.TILLER_HOME?.trim();
  return resolve(home ? home : join(homedir(), ".tiller"));
}

type Obj = Record<string, unknown>;

class Reader {
  constructor(private readonly file: string) {}
  fail(key: string, expected: string, got: unknown): never {
    throw new ConfigError(`${this.file}: ${key}: expected ${expected}, got ${JSON.stringify(got)}`);
  }
  section(obj: Obj, key: string, path: string): Obj {
    const v = obj[key];
    if (v === undefined) return {};
    if (v === null || typeof v !== "object" || Array.isArray(v)) this.fail(path, "an object", v);
    return v as Obj;
  }
  strict(obj: Obj, path: string, allowed: readonly string[]): void {
    for (const key of Object.keys(obj)) {
      if (!allowed.includes(key)) {
        throw new ConfigError(`${this.file}: ${path}.${key}: unknown key (allowed: ${allowed.join(", ")})`);
      }
    }
  }
  int(obj: Obj, key: string, path: string, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const v = obj[key];
    if (v === undefined) return def;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
      this.fail(path, `an integer ${min}..${max === Number.MAX_SAFE_INTEGER ? "" : max}`, v);
    }
    return v;
  }
  str(obj: Obj, key: string, path: string, def: string): string {
    const v = obj[key];
    if (v === undefined) return def;
    if (typeof v !== "string") this.fail(path, "a string", v);
    return v;
  }
  optStr(obj: Obj, key: string, path: string): string | undefined {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "string" || v.length === 0) this.fail(path, "a non-empty string", v);
    return v;
  }
  bool(obj: Obj, key: string, path: string, def: boolean): boolean {
    const v = obj[key];
    if (v === undefined) return def;
    if (typeof v !== "boolean") this.fail(path, "true or false", v);
    return v;
  }
  oneOf<T extends string>(obj: Obj, key: string, path: string, def: T, values: readonly T[]): T {
    const v = obj[key];
    if (v === undefined) return def;
    if (typeof v !== "string" || !values.includes(v as T)) this.fail(path, `one of ${values.join(" | ")}`, v);
    return v as T;
  }
}

/** agents.defaults.model: "provider/id", or {primary: "provider/id", fallbacks: ["provider/id", …]}. */
function readModelSetting(r: Reader, defaults: Obj): { model: string; modelFallbacks: string[] } {
  const v = defaults.model;
  if (v === undefined || typeof v === "string") {
    return { model: r.str(defaults, "model", "agents.defaults.model", ""), modelFallbacks: [] };
  }
  const path = "agents.defaults.model";
  if (v === null || typeof v !== "object" || Array.isArray(v))
    r.fail(path, '"provider/model" or {primary, fallbacks}', v);
  const o = v as Obj;
  r.strict(o, path, ["primary", "fallbacks"]);
  const fb = o.fallbacks;
  if (fb !== undefined && !Array.isArray(fb)) r.fail(`${path}.fallbacks`, 'an array of "provider/model" strings', fb);
  const modelFallbacks = ((fb as unknown[] | undefined) ?? []).map((x, i) => {
    if (typeof x !== "string" || !x.trim()) r.fail(`${path}.fallbacks[${i}]`, 'a "provider/model" string', x);
    return x.trim();
  });
  return { model: r.str(o, "primary", `${path}.primary`, ""), modelFallbacks };
}

// --- gateway.http and gateway.auth.rateLimit (the OpenAI-compatible HTTP API, src/http) ---
function readRateLimit(r: Reader, auth: Obj): AuthRateLimit {
  const rl = r.section(auth, "rateLimit", "gateway.auth.rateLimit");
  const p = "gateway.auth.rateLimit";
  r.strict(rl, p, ["maxAttempts", "windowMs", "lockoutMs", "exemptLoopback"]);
  return {
    maxAttempts: r.int(rl, "maxAttempts", `${p}.maxAttempts`, 10, 1, 1_000_000),
    windowMs: r.int(rl, "windowMs", `${p}.windowMs`, 60_000, 1),
    lockoutMs: r.int(rl, "lockoutMs", `${p}.lockoutMs`, 300_000, 1),
    exemptLoopback: r.bool(rl, "exemptLoopback", `${p}.exemptLoopback`, false),
  };
}

function readHttpSettings(r: Reader, gw: Obj): HttpEndpointsSettings {
  const http = r.section(gw, "http", "gateway.http");
  r.strict(http, "gateway.http", ["endpoints", "maxBodyBytes"]);
  const endpoints = r.section(http, "endpoints", "gateway.http.endpoints");
  r.strict(endpoints, "gateway.http.endpoints", ["chatCompletions", "responses"]);
  const endpoint = (name: "chatCompletions" | "responses"): { enabled: boolean } => {
    const path = `gateway.http.endpoints.${name}`;
    const o = r.section(endpoints, name, path);
    r.strict(o, path, ["enabled"]);
    return { enabled: r.bool(o, "enabled", `${path}.enabled`, false) };
  };
  return {
    chatCompletions: endpoint("chatCompletions"),
    responses: endpoint("responses"),
    maxBodyBytes: r.int(http, "maxBodyBytes", "gateway.http.maxBodyBytes", 20 * 1024 * 1024, 1024),
  };
}
// --- end gateway.http ---

/** Validates a parsed config object (exported for tests and for `config.*` style callers). */
export function validateConfig(input: unknown, home: string, file = "tiller.json"): TillerConfig {
  const r = new Reader(file);
  if (input === null || typeof input !== "object" || Array.isArray(input)) r.fail("(root)", "an object", input);
  const root = input as Obj;

  const gw = r.section(root, "gateway", "gateway");
  r.strict(gw, "gateway", ["port", "bind", "auth", "maxPayloadBytes", "maxBufferedBytes", "tickIntervalMs", "http"]);
  const auth = r.section(gw, "auth", "gateway.auth");
  r.strict(auth, "gateway.auth", ["token", "password", "mode", "rateLimit"]);

  const agents = r.section(root, "agents", "agents");
  const defaults = r.section(agents, "defaults", "agents.defaults");
  const listRaw = agents.list;
  if (listRaw !== undefined && !Array.isArray(listRaw)) r.fail("agents.list", "an array", listRaw);
  const list: AgentEntry[] = [];
  for (const [i, item] of ((listRaw as unknown[] | undefined) ?? []).entries()) {
    const path = `agents.list[${i}]`;
    if (item === null || typeof item !== "object" || Array.isArray(item)) r.fail(path, "an object", item);
    const o = item as Obj;
    const id = r.optStr(o, "id", `${path}.id`) ?? "";
    if (!/^[a-z0-9][a-z0-9_-]*$/i.test(id)) r.fail(`${path}.id`, "an id of letters, digits, - or _", o.id);
    list.push({
      id,
      name: r.optStr(o, "name", `${path}.name`),
      model: r.optStr(o, "model", `${path}.model`),
      workspace: r.optStr(o, "workspace", `${path}.workspace`),
    });
  }
  if (list.length === 0) list.push({ id: "main", name: "main" });

  const messages = r.section(root, "messages", "messages");
  const queue = r.section(messages, "queue", "messages.queue");
  r.strict(queue, "messages.queue", ["mode", "debounceMs", "cap", "drop"]);

  const workspace = r.str(defaults, "workspace", "agents.defaults.workspace", join(home, "workspace"));
  return {
    home,
    gateway: {
      port: r.int(gw, "port", "gateway.port", DEFAULT_PORT, 0, 65535),
      bind: r.str(gw, "bind", "gateway.bind", "127.0.0.1"),
      auth: {
        token: r.optStr(auth, "token", "gateway.auth.token"),
        password: r.optStr(auth, "password", "gateway.auth.password"),
        rateLimit: readRateLimit(r, auth),
      },
      maxPayloadBytes: r.int(gw, "maxPayloadBytes", "gateway.maxPayloadBytes", 25 * 1024 * 1024, 1024),
      maxBufferedBytes: r.int(gw, "maxBufferedBytes", "gateway.maxBufferedBytes", 50 * 1024 * 1024, 1024),
      tickIntervalMs: r.int(gw, "tickIntervalMs", "gateway.tickIntervalMs", 30_000, 10),
      http: readHttpSettings(r, gw),
    },
    agents: {
      defaults: {
        ...readModelSetting(r, defaults),
        thinking: r.oneOf(defaults, "thinking", "agents.defaults.thinking", "off", THINKING_SETTINGS),
        verbose: r.bool(defaults, "verbose", "agents.defaults.verbose", false),
        timeoutSeconds: r.int(defaults, "timeoutSeconds", "agents.defaults.timeoutSeconds", DEFAULT_TIMEOUT_SECONDS, 1),
        maxConcurrent: r.int(defaults, "maxConcurrent", "agents.defaults.maxConcurrent", 4, 1, 10_000),
        subagentMaxConcurrent: r.int(
          defaults,
          "subagentMaxConcurrent",
          "agents.defaults.subagentMaxConcurrent",
          8,
          1,
          10_000,
        ),
        cronMaxConcurrent: r.int(defaults, "cronMaxConcurrent", "agents.defaults.cronMaxConcurrent", 1, 1, 10_000),
        workspace: resolve(home, workspace),
      },
      list,
      defaultId: (list[0] as AgentEntry).id,
    },
    messages: {
      queue: {
        mode: r.oneOf(queue, "mode", "messages.queue.mode", "steer", QUEUE_MODES),
        debounceMs: r.int(queue, "debounceMs", "messages.queue.debounceMs", 500, 0, 600_000),
        cap: r.int(queue, "cap", "messages.queue.cap", 20, 1, 10_000),
        drop: r.oneOf(queue, "drop", "messages.queue.drop", "summarize", DROP_POLICIES),
      },
    },
    raw: root,
  };
}

/** Reads and validates $home/tiller.json; a missing file gives the defaults. Throws ConfigError. */
export function loadConfig(home: string = resolveTillerHome()): TillerConfig {
  const file = join(home, "tiller.json");
  if (!existsSync(file)) return validateConfig({}, home);
  const parsed = parseJsonc(readFileSync(file, "utf8"), file);
  return validateConfig(parsed, home, file);
}
