/** `.mcp.json` and `mcpServers` in settings: precedence, `${VAR}` expansion, errors naming the key, and trust. */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadMcpConfig, McpTrustStore, validateMcpServers } from "../src/mcp/index.js";
import { tempDir } from "./tool-helpers.js";

let root: string;
let cleanup: () => void;
let home: string;
let project: string;
beforeEach(() => {
  ({ dir: root, cleanup } = tempDir("tiller-mcp-config-"));
  home = join(root, "home");
  project = join(root, "project");
  mkdirSync(home);
  mkdirSync(join(project, ".tiller"), { recursive: true });
});
afterEach(() => cleanup());

describe("MCP configuration", () => {
  it("reads user settings, .mcp.json and .tiller/settings.json; the project file wins a name; variables expand", () => {
    writeFileSync(
      join(home, "settings.json"),
      JSON.stringify({
        mcpServers: { shared: { command: "user-cmd" }, mine: { type: "http", url: "http://127.0.0.1:1/mcp" } },
      }),
    );
    writeFileSync(
      join(project, ".mcp.json"),
      `{
        // comments are allowed, as in models.json
        "mcpServers": {
          "shared": { "command": "project-cmd", "args": ["--token", "\${TOKEN}"], "env": { "LEVEL": "\${LEVEL:-info}" }, "cwd": "sub" },
          "remote": { "type": "sse", "url": "\${BASE}/sse", "headers": { "Authorization": "Bearer \${TOKEN}" } },
        },
      }`,
    );
    writeFileSync(
      join(project, ".tiller", "settings.json"),
      JSON.stringify({ mcpServers: { remote: { type: "http", url: "http://override/mcp" } } }),
    );
    const { servers, errors } = loadMcpConfig({ cwd: project, home, env: { TOKEN: "t0k", BASE: "http://x" } });
    expect(errors).toEqual([]);
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(byName.mine).toMatchObject({ scope: "user", config: { type: "http" } });
    expect(byName.shared).toMatchObject({
      scope: "project",
      file: join(project, ".mcp.json"),
      config: { command: "project-cmd", args: ["--token", "t0k"], env: { LEVEL: "info" }, cwd: join(project, "sub") },
    });
    expect(byName.remote).toMatchObject({ scope: "project", config: { type: "http", url: "http://override/mcp" } });
  });

  it("a bad entry is reported with its file and key and left out; the others load", () => {
    writeFileSync(
      join(project, ".mcp.json"),
      JSON.stringify({
        mcpServers: {
          ok: { command: "fine" },
          badArgs: { command: "x", args: ["a", 3] },
          badType: { type: "websocket", url: "ws://x" },
          noUrl: { type: "http" },
          extra: { command: "x", comand: "typo" },
          // biome-ignore lint/suspicious/noTemplateCurlyInString: the entry holds a literal ${VAR}.
          needsVar: { command: "x", env: { KEY: "${MISSING_KEY}" } },
        },
      }),
    );
    const { servers, errors } = loadMcpConfig({ cwd: project, home, env: {} });
    expect(servers.map((s) => s.name)).toEqual(["ok"]);
    const file = join(project, ".mcp.json");
    expect(errors).toEqual([
      `${file}: mcpServers.badArgs.args[1] must be string`,
      `${file}: mcpServers.badType.type must be "stdio", "http" or "sse" (got "websocket")`,
      `${file}: mcpServers.noUrl must have required properties url`,
      `${file}: mcpServers.extra.comand is not a known key`,
      `${file}: mcpServers.needsVar uses \${MISSING_KEY}, not set in the environment`,
    ]);
    expect(validateMcpServers([], "mcp.servers").errors).toEqual(["mcp.servers must be an object of servers by name"]);
  });

  it("invalid JSON names the file; nothing else breaks", () => {
    writeFileSync(join(project, ".mcp.json"), "{ not json");
    const { servers, errors } = loadMcpConfig({ cwd: project, home, env: {} });
    expect(servers).toEqual([]);
    expect(errors[0]).toContain(`${join(project, ".mcp.json")}: invalid JSON`);
  });

  it("project servers need trust, remembered per project and entry; an edited entry asks again", () => {
    writeFileSync(join(home, "settings.json"), JSON.stringify({ mcpServers: { u: { command: "u" } } }));
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { p: { command: "p", args: ["1"] } } }));
    const store = new McpTrustStore(home);
    const first = loadMcpConfig({ cwd: project, home, env: {} }).servers;
    expect(store.untrusted(first).map((s) => s.name)).toEqual(["p"]);
    store.trust(first);
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    const again = loadMcpConfig({ cwd: project, home, env: {} }).servers;
    expect(store.untrusted(again)).toEqual([]);
    expect(again.every((s) => new McpTrustStore(home).isTrusted(s))).toBe(true);
    writeFileSync(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { p: { command: "p", args: ["2"] } } }));
    const edited = loadMcpConfig({ cwd: project, home, env: {} }).servers;
    expect(store.untrusted(edited).map((s) => s.name)).toEqual(["p"]);
  });
});
