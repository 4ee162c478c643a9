/**
 * Loads plugins (`$TILLER_HOME/plugins/`, `plugins.load`) and gateway hooks (`$TILLER_HOME/hooks/`), and returns
 * the runner's pipeline (what its workspace, tools, prompt and reply stages use), the plugins' run extension and
 * (with `tools.enabled`) the tool engine, plus the gateway lifecycle and command hook calls. `startGateway` (start-gateway.ts) passes it to the server as `shaping`; the core keeps it.
 *
 * tiller.json keys read here: `tools.enabled` (run tools through the agent loop; default true),
 * `agents.defaults.blockStreaming` ({ minChars, maxChars, breakPreference, break }), `agents.defaults.reasoning`
 * ("off" | "on" | "stream"), `agents.defaults.enforceFinalTag`.
 */
import type { TillerConfig } from "../config/config-types.js";
import type { ModelRegistry } from "../config/models-config.js";
import { createInternalHookEvent, type InternalHookRegistry, loadInternalHooks } from "../hooks/internal-hooks.js";
import { type GatewayMcp, startGatewayMcp } from "../mcp/gateway-mcp.js";
import type { BlockStreamingOptions } from "../reply/reply-shaper.js";
import type { SessionFactory } from "../run/embedded-session.js";
import type { RunContext, RunExtension, RunRequest } from "../run/run-types.js";
import type { RunPipeline } from "../run/stages/pipeline.js";
import type { SessionEntry } from "../store/session-store.js";
import { createGatewayTools, type GatewayToolDeps } from "../tools/gateway-tools.js";
import { createToolSessionFactory } from "../tools/tool-engine.js";
import { createGatewayRunExtension } from "./gateway-run-extension.js";
import type { HookRunner } from "./hook-runner.js";
import { loadPlugins } from "./plugin-loader.js";
import type { PluginRegistry } from "./plugin-registry.js";

/** The parts of the gateway core the extensions use once the server exists. */
export interface ShapingCoreAccess {
  store: {
    transcriptDir(agentId: string): string;
    list(limit?: number): SessionEntry[];
    get(key: string): SessionEntry | undefined;
  };
  /** Accepts a run (resolves once accepted; false for a known runId). */
  submit(req: RunRequest): Promise<boolean>;
  models: ModelRegistry;
  /** Set by `attach`: the MCP servers, shown by `status` and stopped by the core's shutdown. */
  mcp?: GatewayMcp;
}

export interface GatewayShaping {
  plugins: PluginRegistry;
  hooks: HookRunner;
  internalHooks: InternalHookRegistry;
  /** MCP servers from `mcp.servers` (connected by `loadGatewayShaping`). */
  mcp: GatewayMcp;
  /** The stages' pipeline, the run extension and (with tools) the engine; the core installs them. */
  runner: { pipeline: RunPipeline; extensions: RunExtension[]; sessionFactory?: SessionFactory };
  /** Gives the tool engine and the gateway tools access to the core; the core calls it when it is built. */
  attach(core: ShapingCoreAccess): void;
  /** gateway_start (plugins) and gateway:startup (hooks). */
  gatewayStarted(port: number): Promise<void>;
  gatewayStopping(reason?: string): Promise<void>;
  /**
   * Command hooks for /new, /reset, /stop: runs `command:<action>` gateway hooks (their messages are returned, to be
   * added to the reply) and, for /new and /reset, the plugins' session_end of the session that ended.
   */
  runCommandHooks(action: string, sessionKey: string, previous?: SessionEntry): Promise<string[]>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function readBlockStreaming(defaults: Obj): BlockStreamingOptions | undefined {
  const bs = defaults.blockStreaming;
  if (!isObj(bs) || bs.enabled === false) return undefined;
  const num = (v: unknown, d: number) => (typeof v === "number" && v > 0 ? v : d);
  return {
    minChars: num(bs.minChars, 800),
    maxChars: num(bs.maxChars, 1200),
    breakPreference:
      bs.breakPreference === "newline" || bs.breakPreference === "sentence" ? bs.breakPreference : "paragraph",
    break: bs.break === "message_end" ? "message_end" : "text_end",
  };
}

export interface LoadGatewayShapingOptions {
  config: TillerConfig;
  log?: (line: string) => void;
}

export async function loadGatewayShaping(options: LoadGatewayShapingOptions): Promise<GatewayShaping> {
  const { config } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger = { info: log, warn: log };
  const plugins = await loadPlugins({ home: config.home, config: config.raw, logger });
  const internalHooks = await loadInternalHooks({ home: config.home, config: config.raw, logger });
  const hooks = plugins.createHookRunner(logger);
  for (const p of plugins.plugins) log(`[plugins] loaded ${p.id} (${p.hookCount} hooks) from ${p.source}`);

  const raw = config.raw;
  // Runs use the tool engine (AgentSession: coding tools in the agent's workspace, threshold compaction)
  // unless `tools.enabled: false` asks for plain chat runs.
  const tools = !(isObj(raw.tools) && raw.tools.enabled === false);
  const mcp = startGatewayMcp(config, log, { toolsEnabled: tools });
  const defaults =
    isObj(raw.agents) && isObj((raw.agents as Obj).defaults) ? ((raw.agents as Obj).defaults as Obj) : {};
  const reasoning = defaults.reasoning === "on" || defaults.reasoning === "stream" ? defaults.reasoning : "off";

  let core: ShapingCoreAccess | undefined;
  const gatewayTools = (ctx: RunContext): GatewayToolDeps => {
    const c = core;
    if (!c) return {};
    return {
      listSessions: async ({ limit }) =>
        c.store.list(limit).map((s) => ({ key: s.key, updatedAt: s.updatedAt, label: s.label ?? undefined })),
      sendToSession: async ({ sessionKey, message }) => {
        const runId = `tool:${ctx.runId}:${Date.now().toString(36)}`;
        const target = c.store.get(sessionKey);
        await c.submit({
          runId,
          sessionKey,
          agentId: target?.agentId ?? ctx.agentId,
          message,
          acceptedAt: Date.now(),
          source: "agent",
        });
        return { runId };
      },
      sessionStatus: async () => {
        const s = c.store.get(ctx.sessionKey);
        return { sessionKey: ctx.sessionKey, model: ctx.model.ref, thinking: ctx.thinking, ...(s ? { entry: s } : {}) };
      },
    };
  };
  const pipeline: RunPipeline = {
    hooks,
    internalHooks,
    tools,
    gatewayTools: (ctx, hookContext) => createGatewayTools({ ...gatewayTools(ctx), hooks, hookContext }),
    extraTools: async () => [...plugins.tools, ...(await mcp.tools())],
    reply: {
      blockStreaming: readBlockStreaming(defaults) ?? false,
      reasoning,
      enforceFinalTag: defaults.enforceFinalTag === true,
    },
    log,
  };
  const extension = createGatewayRunExtension({ hooks });
  const sessionFactory = tools
    ? createToolSessionFactory({
        transcriptDir: (agentId) => {
          if (!core) throw new Error("gateway shaping is not attached to a gateway core");
          return core.store.transcriptDir(agentId);
        },
        hooks,
        models: () => core?.models.catalog,
      })
    : undefined;

  return {
    plugins,
    hooks,
    internalHooks,
    mcp,
    runner: { pipeline, extensions: [extension], ...(sessionFactory ? { sessionFactory } : {}) },
    attach(c) {
      core = c;
      c.mcp = mcp;
    },
    async gatewayStarted(port) {
      await hooks.runObserver("gateway_start", { port });
      await internalHooks.trigger(createInternalHookEvent("gateway", "startup", { port }));
    },
    async gatewayStopping(reason) {
      await hooks.runObserver("gateway_stop", reason ? { reason } : {});
    },
    async runCommandHooks(action, sessionKey, previous) {
      const event = await internalHooks.trigger(
        createInternalHookEvent(
          "command",
          action,
          previous ? { previousSessionId: previous.sessionId } : {},
          sessionKey,
        ),
      );
      if ((action === "new" || action === "reset") && previous) {
        await hooks.runObserver(
          "session_end",
          { sessionKey, sessionId: previous.sessionId, reason: action },
          { sessionKey, sessionId: previous.sessionId, agentId: previous.agentId },
        );
      }
      return event.messages.filter((m) => typeof m === "string" && m.trim().length > 0);
    },
  };
}
