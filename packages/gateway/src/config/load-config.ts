/**
 * Loads $TILLER_HOME/tiller.json (JSON with comments), validates it against its schema (config-schema.ts) and
 * fills defaults. Every error names the file and the dotted key, e.g.
 * `tiller.json: gateway.port: expected an integer 0..65535, got "x"`.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { Static } from "typebox";
import { compileSchema } from "../protocol/schema/validate.js";
import type { ModelSettingSchema } from "./config-schema.js";
import { TillerConfigSchema } from "./config-schema.js";
import { type AgentEntry, DEFAULT_PORT, DEFAULT_TIMEOUT_SECONDS, type TillerConfig } from "./config-types.js";
import { ConfigError, parseJsonc } from "./jsonc.js";

/** $TILLER_HOME, else ~/.tiller: the same home the CLI uses. */
export function resolveTillerHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.TILLER_HOME?.trim();
  return resolve(home ? home : join(homedir(), ".tiller"));
}

const CONFIG = compileSchema(TillerConfigSchema);

/** The ConfigError for the first thing wrong in the file, naming the file and the dotted key. */
function configError(file: string, input: unknown): ConfigError {
  const issue = CONFIG.issue(input);
  if (!issue) return new ConfigError(`${file}: invalid`);
  const key = issue.path || "(root)";
  if (issue.kind === "unknown_key") return new ConfigError(`${file}: ${key}: unknown key (allowed: ${issue.expected})`);
  return new ConfigError(`${file}: ${key}: expected ${issue.expected}, got ${JSON.stringify(issue.got)}`);
}

/** agents.defaults.model: "provider/id", or {primary: "provider/id", fallbacks: ["provider/id", …]}. */
function modelSetting(v: Static<typeof ModelSettingSchema> | undefined): { model: string; modelFallbacks: string[] } {
  if (v === undefined || typeof v === "string") return { model: v ?? "", modelFallbacks: [] };
  return { model: v.primary ?? "", modelFallbacks: (v.fallbacks ?? []).map((x) => x.trim()) };
}

/** Validates a parsed config object against the tiller.json schema and fills the defaults. Throws ConfigError. */
export function validateConfig(input: unknown, home: string, file = "tiller.json"): TillerConfig {
  if (!CONFIG.check(input)) throw configError(file, input);
  const root = input;
  const gw = root.gateway ?? {};
  const defaults = root.agents?.defaults ?? {};
  const queue = root.messages?.queue ?? {};
  const list: AgentEntry[] = (root.agents?.list ?? []).map((a) => ({
    id: a.id,
    name: a.name,
    model: a.model,
    workspace: a.workspace,
  }));
  if (list.length === 0) list.push({ id: "main", name: "main" });
  const workspace = defaults.workspace ?? join(home, "workspace");
  return {
    home,
    gateway: {
      port: gw.port ?? DEFAULT_PORT,
      bind: gw.bind ?? "127.0.0.1",
      auth: {
        token: gw.auth?.token ?? undefined,
        password: gw.auth?.password ?? undefined,
        rateLimit: {
          maxAttempts: gw.auth?.rateLimit?.maxAttempts ?? 10,
          windowMs: gw.auth?.rateLimit?.windowMs ?? 60_000,
          lockoutMs: gw.auth?.rateLimit?.lockoutMs ?? 300_000,
          exemptLoopback: gw.auth?.rateLimit?.exemptLoopback ?? false,
        },
      },
      maxPayloadBytes: gw.maxPayloadBytes ?? 25 * 1024 * 1024,
      maxBufferedBytes: gw.maxBufferedBytes ?? 50 * 1024 * 1024,
      tickIntervalMs: gw.tickIntervalMs ?? 30_000,
      http: {
        chatCompletions: { enabled: gw.http?.endpoints?.chatCompletions?.enabled ?? false },
        responses: { enabled: gw.http?.endpoints?.responses?.enabled ?? false },
        maxBodyBytes: gw.http?.maxBodyBytes ?? 20 * 1024 * 1024,
      },
    },
    agents: {
      defaults: {
        ...modelSetting(defaults.model),
        thinking: defaults.thinking ?? "off",
        verbose: defaults.verbose ?? false,
        timeoutSeconds: defaults.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
        maxConcurrent: defaults.maxConcurrent ?? 4,
        subagentMaxConcurrent: defaults.subagentMaxConcurrent ?? 8,
        cronMaxConcurrent: defaults.cronMaxConcurrent ?? 1,
        workspace: resolve(home, workspace),
      },
      list,
      defaultId: (list[0] as AgentEntry).id,
    },
    messages: {
      queue: {
        mode: queue.mode ?? "steer",
        debounceMs: queue.debounceMs ?? 500,
        cap: queue.cap ?? 20,
        drop: queue.drop ?? "summarize",
      },
    },
    raw: root as Record<string, unknown>,
  };
}

/** Reads and validates $home/tiller.json; a missing file gives the defaults. Throws ConfigError. */
export function loadConfig(home: string = resolveTillerHome()): TillerConfig {
  const file = join(home, "tiller.json");
  if (!existsSync(file)) return validateConfig({}, home);
  const parsed = parseJsonc(readFileSync(file, "utf8"), file);
  return validateConfig(parsed, home, file);
}
