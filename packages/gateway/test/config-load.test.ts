/** tiller.json / models.json: comments allowed, defaults filled, errors that name the key. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, stripJsonComments } from "../src/config/jsonc.js";
import { loadConfig, validateConfig } from "../src/config/load-config.js";
import { ModelRegistry, OFFLINE_MODEL_REF } from "../src/config/models-config.js";
import { GatewayServer } from "../src/server/gateway-server.js";

const homes: string[] = [];
function home(files: Record<string, string> = {}): string {
  const h = mkdtempSync(join(tmpdir(), "tiller-cfg-"));
  homes.push(h);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(h, name), text);
  return h;
}
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

describe("tiller.json", () => {
  it("gives the documented defaults when the file is missing", () => {
    const c = loadConfig(home());
    expect(c.gateway).toMatchObject({ port: 18789, bind: "127.0.0.1", tickIntervalMs: 30000 });
    expect(c.agents.defaults).toMatchObject({ timeoutSeconds: 172800, maxConcurrent: 4, thinking: "off" });
    expect(c.messages.queue).toEqual({ mode: "steer", debounceMs: 500, cap: 20, drop: "summarize" });
    expect(c.agents.defaultId).toBe("main");
  });

  it("reads JSON with comments and trailing commas, without touching // inside strings", () => {
    const h = home({
      "tiller.json": `{
        // the gateway
        "gateway": { "port": 1234, "auth": { "token": "a//b" }, }, /* block */
        "agents": { "defaults": { "model": "mock/m", "timeoutSeconds": 60 } },
        "messages": { "queue": { "mode": "collect", "cap": 3 } },
      }`,
    });
    const c = loadConfig(h);
    expect(c.gateway.port).toBe(1234);
    expect(c.gateway.auth.token).toBe("a//b");
    expect(c.agents.defaults.timeoutSeconds).toBe(60);
    expect(c.messages.queue).toMatchObject({ mode: "collect", cap: 3, drop: "summarize" });
    expect(stripJsonComments('{"a": "x, }",}')).toBe('{"a": "x, }"}');
  });

  it("names the file and key in validation errors", () => {
    expect(() => validateConfig({ gateway: { port: "x" } }, "/h")).toThrow(
      'tiller.json: gateway.port: expected an integer 0..65535, got "x"',
    );
    expect(() => validateConfig({ messages: { queue: { mode: "sideways" } } }, "/h")).toThrow(
      /messages\.queue\.mode: expected one of steer \| followup \| collect \| interrupt/,
    );
    expect(() => validateConfig({ gateway: { prot: 1 } }, "/h")).toThrow(/gateway\.prot: unknown key/);
    expect(() => validateConfig({ agents: { defaults: { maxConcurrent: 0 } } }, "/h")).toThrow(
      /agents\.defaults\.maxConcurrent/,
    );
    const h = home({ "tiller.json": '{\n  "gateway": {\n    "port": 1 2,\n  }\n}' });
    expect(() => loadConfig(h)).toThrow(ConfigError);
    expect(() => loadConfig(h)).toThrow(/tiller\.json:3: invalid JSON/);
  });
});

describe("models.json", () => {
  it("adds custom providers; with nothing configured the default is the offline model", () => {
    expect(ModelRegistry.load(home(), "").defaultRef).toBe(OFFLINE_MODEL_REF);
    const h = home({
      "models.json": JSON.stringify({
        providers: {
          local: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions", apiKey: "k", models: [{ id: "qwen" }] },
        },
      }),
    });
    const reg = ModelRegistry.load(h, "");
    expect(reg.defaultRef).toBe("local/qwen");
    expect(reg.resolve("local/qwen")).toMatchObject({
      apiKey: "k",
      model: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions" },
    });
    expect(reg.resolve("qwen")?.ref).toBe("local/qwen");
    expect(reg.resolve("nope/x")).toBeUndefined();
    const bad = home({ "models.json": JSON.stringify({ providers: { p: { models: [{ id: "m" }] } } }) });
    expect(() => ModelRegistry.load(bad, "")).toThrow(/providers\.p\.(api|baseUrl) is required/);
  });
});

describe("start-up", () => {
  it("refuses to bind a non-loopback address without a token", async () => {
    const config = validateConfig({}, home());
    await expect(GatewayServer.start({ config, bind: "0.0.0.0", port: 0 })).rejects.toThrow(
      /refusing to bind 0\.0\.0\.0 without a token/,
    );
  });
});
