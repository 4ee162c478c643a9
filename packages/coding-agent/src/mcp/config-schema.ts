/**
 * The MCP server configuration, in Claude Code's `.mcp.json` shape, defined once as TypeBox schemas: the types
 * are derived from them and `validateMcpServers` reports problems naming the key
 * (`mcpServers.files.args[0] must be string`).
 */
import { type Static, Type } from "typebox";
import { Compile } from "typebox/compile";

const Timeouts = {
  /** Per-call timeout in milliseconds (default 60 000). Progress notifications from the server restart it. */
  timeout: Type.Optional(Type.Integer({ minimum: 1 })),
  /** How long connecting (start, initialize, first tool list) may take, in milliseconds (default 30 000). */
  startupTimeout: Type.Optional(Type.Integer({ minimum: 1 })),
};

/** A server started as a child process, speaking JSON-RPC on its stdin/stdout. */
export const McpStdioServerSchema = Type.Object(
  {
    type: Type.Optional(Type.Literal("stdio")),
    command: Type.String({ minLength: 1 }),
    args: Type.Optional(Type.Array(Type.String())),
    /** Added to Tiller's own environment. */
    env: Type.Optional(Type.Record(Type.String(), Type.String())),
    /** Working folder of the server; relative to the project root. Default: the project root. */
    cwd: Type.Optional(Type.String()),
    ...Timeouts,
  },
  { additionalProperties: false },
);

/** A remote server: `http` is streamable HTTP (falling back to legacy HTTP+SSE), `sse` is legacy HTTP+SSE. */
export const McpRemoteServerSchema = Type.Object(
  {
    type: Type.Union([Type.Literal("http"), Type.Literal("sse")]),
    url: Type.String({ minLength: 1 }),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    ...Timeouts,
  },
  { additionalProperties: false },
);

export const McpServerConfigSchema = Type.Union([McpStdioServerSchema, McpRemoteServerSchema]);

export type McpStdioServerConfig = Static<typeof McpStdioServerSchema>;
export type McpRemoteServerConfig = Static<typeof McpRemoteServerSchema>;
export type McpServerConfig = Static<typeof McpServerConfigSchema>;

const stdioCheck = Compile(McpStdioServerSchema);
const remoteCheck = Compile(McpRemoteServerSchema);

/** `/args/0` → `.args[0]`. */
function keyPath(instancePath: string): string {
  return instancePath
    .split("/")
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p.replace(/~1/g, "/").replace(/~0/g, "~")}`))
    .join("");
}

/**
 * Validates the value of an `mcpServers` key. Returns the valid servers and one error per invalid one, naming
 * the key (`prefix` is how the key is spelled in that file, e.g. `mcpServers` or `mcp.servers`).
 */
export function validateMcpServers(
  raw: unknown,
  prefix = "mcpServers",
): { servers: Record<string, McpServerConfig>; errors: string[] } {
  const servers: Record<string, McpServerConfig> = {};
  const errors: string[] = [];
  if (raw === undefined) return { servers, errors };
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return { servers, errors: [`${prefix} must be an object of servers by name`] };
  }
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    const key = `${prefix}.${name}`;
    if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
      errors.push(`${key}: a server name may hold only letters, digits, "_", "-" and "."`);
      continue;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      errors.push(`${key} must be an object`);
      continue;
    }
    const type = (value as { type?: unknown }).type;
    // Pick the branch first, so the error is about the shape the user meant, not a union's noise.
    const check =
      type === undefined || type === "stdio" ? stdioCheck : type === "http" || type === "sse" ? remoteCheck : undefined;
    if (!check) {
      errors.push(`${key}.type must be "stdio", "http" or "sse" (got ${JSON.stringify(type)})`);
      continue;
    }
    if (check.Check(value)) {
      servers[name] = value as McpServerConfig;
      continue;
    }
    const first = [...check.Errors(value)][0];
    // `additionalProperties: false` reports an unknown key as "schema is false" at that key's path.
    const message = first?.keyword === "boolean" ? "is not a known key" : (first?.message ?? "is invalid");
    errors.push(`${key}${keyPath(first?.instancePath ?? "")} ${message}`);
  }
  return { servers, errors };
}
