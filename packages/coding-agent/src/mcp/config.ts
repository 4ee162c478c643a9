/**
 * Where MCP servers are configured, in Claude Code's format: `mcpServers` in `$TILLER_HOME/settings.json` (user
 * scope), `<project>/.mcp.json` and `mcpServers` in `<project>/.tiller/settings.json` (project scope). On a name
 * clash the later wins: `.tiller/settings.json` over `.mcp.json` over the user's settings. `${VAR}` and
 * `${VAR:-default}` are expanded from the environment in every string of an entry.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { stripJsonc } from "../models/models-json.js";
import { mcpConfigFiles } from "./config-files.js";
import { type McpServerConfig, validateMcpServers } from "./config-schema.js";
import type { McpServerDefinition, McpServerScope } from "./types.js";

export interface LoadMcpConfigOptions {
  /** Project root: where `.mcp.json` and `.tiller/settings.json` are read. */
  cwd: string;
  /** `$TILLER_HOME`. */
  home: string;
  /** Variables for `${VAR}` (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export interface McpConfigResult {
  servers: McpServerDefinition[];
  /** One line per problem, naming the file and key; the server concerned is left out. */
  errors: string[];
}

function readJson(file: string, errors: string[]): Record<string, unknown> | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const text = readFileSync(file, "utf8");
    if (text.trim() === "") return undefined;
    const value = JSON.parse(stripJsonc(text)) as unknown;
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      errors.push(`${file}: must be a JSON object`);
      return undefined;
    }
    return value as Record<string, unknown>;
  } catch (err) {
    errors.push(`${file}: invalid JSON (${(err as Error).message})`);
    return undefined;
  }
}

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands `${VAR}` / `${VAR:-default}`; a variable that is unset and has no default is named in `missing`. */
export function expandVars(text: string, env: Record<string, string | undefined>, missing: string[]): string {
  return text.replace(VAR, (_m, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== "") return v;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return "";
  });
}

function expandDeep<T>(value: T, env: Record<string, string | undefined>, missing: string[]): T {
  if (typeof value === "string") return expandVars(value, env, missing) as T;
  if (Array.isArray(value)) return value.map((v) => expandDeep(v, env, missing)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = expandDeep(v, env, missing);
    return out as T;
  }
  return value;
}

/** Stable hash of an entry as written (before expansion): trust is given to exactly this command or URL. */
export function fingerprintServer(config: McpServerConfig): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === "object"
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash("sha256")
    .update(JSON.stringify(canonical(config)))
    .digest("hex")
    .slice(0, 16);
}

export interface ResolveMcpServersOptions {
  /** Where the servers were read (named in errors and kept in each definition). */
  file: string;
  scope: McpServerScope;
  /** How the key is spelled in that file: `mcpServers`, or `mcp.servers` in the gateway's tiller.json. */
  key: string;
  /** Folder that relative `cwd` entries are resolved against. */
  root: string;
  env?: Record<string, string | undefined>;
}

/**
 * Validates one `mcpServers` object and expands its variables. Returns the definitions and one error per server
 * left out (named by file and key). The gateway reads `mcp.servers` of tiller.json through this too.
 */
export function resolveMcpServers(raw: unknown, o: ResolveMcpServersOptions): McpConfigResult {
  const env = o.env ?? process.env;
  const errors: string[] = [];
  const out: McpServerDefinition[] = [];
  const { servers, errors: problems } = validateMcpServers(raw, o.key);
  for (const p of problems) errors.push(`${o.file}: ${p}`);
  for (const [name, entry] of Object.entries(servers)) {
    const missing: string[] = [];
    const config = expandDeep(entry, env, missing);
    if (missing.length > 0) {
      errors.push(
        `${o.file}: ${o.key}.${name} uses ${[...new Set(missing)].map((m) => `\${${m}}`).join(", ")}, not set in the environment`,
      );
      continue;
    }
    if ("command" in config && config.cwd !== undefined) config.cwd = resolve(o.root, config.cwd);
    out.push({
      name,
      config,
      scope: o.scope,
      file: o.file,
      projectRoot: o.root,
      fingerprint: fingerprintServer(entry),
    });
  }
  return { servers: out, errors };
}

/** Reads every config file and returns the servers, highest-precedence definition per name. Never throws. */
export function loadMcpConfig(options: LoadMcpConfigOptions): McpConfigResult {
  const cwd = resolve(options.cwd);
  const errors: string[] = [];
  const byName = new Map<string, McpServerDefinition>();
  for (const { file, scope, key } of mcpConfigFiles(cwd, options.home)) {
    const json = readJson(file, errors);
    if (!json || json[key] === undefined) continue;
    const resolved = resolveMcpServers(json[key], { file, scope, key, root: cwd, env: options.env ?? process.env });
    errors.push(...resolved.errors);
    // A later file's broken entry still hides the earlier one of that name: the user meant to replace it.
    if (json[key] && typeof json[key] === "object") {
      for (const name of Object.keys(json[key] as object)) byName.delete(name);
    }
    for (const d of resolved.servers) byName.set(d.name, d);
  }
  return { servers: [...byName.values()], errors };
}
