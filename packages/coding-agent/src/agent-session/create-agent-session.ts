/**
 * `createAgentSession`: the SDK entry point. Wires settings, auth, the model registry, a session file and an
 * Agent into an AgentSession. Model choice: `options.model`, else the model the session last used, else
 * `defaultProvider`/`defaultModel` from settings, else the first catalog model of a provider that has a key,
 * else the offline model (`offline/tiller-offline`), so Tiller always starts.
 */

import { Agent, type AgentTool, type SteeringDelivery, type StreamFn, type ThinkingLevel } from "@tiller/agent";
import { type Api, clampThinkingLevel, getModel, getProviders, type Model, streamSimple } from "@tiller/ai";
import { AuthStorage } from "../auth/auth-storage.js";
import type { LoadExtensionsResult } from "../extensions/extension-runtime.js";
import type { ToolDefinition } from "../extensions/tool-definition.js";
import { getTillerHome, getTillerPaths } from "../home.js";
import { ModelRegistry } from "../models/model-registry.js";
import type { ResourceLoader } from "../runtime/resource-loader.js";
import { SessionManager } from "../session/session-manager.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { AgentSession, type ScopedModel } from "./agent-session.js";
import { resolveSessionTools } from "./session-tools.js";

export interface CreateAgentSessionOptions {
  /** Working directory (default `process.cwd()`). */
  cwd?: string;
  /** Tiller home (default `$TILLER_HOME` or `~/.tiller`). `agentDir` is accepted as pi's name for it. */
  home?: string;
  agentDir?: string;
  model?: Model<Api>;
  thinkingLevel?: ThinkingLevel;
  /**
   * Tools of the session: AgentTool objects, or (pi's form) names of built-in tools (`"read"`, `"bash"`, …)
   * created for `cwd`. Default: none (an embedder opts in to tools that act on the machine).
   */
  // biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
  tools?: Array<AgentTool<any> | string>;
  /** pi's extension-style tool definitions, added after `tools` (their context comes from `resourceLoader`). */
  customTools?: ToolDefinition[];
  /** pi's switch: `"all"` gives the session no tools at all; `"builtin"` drops the named built-in ones. */
  noTools?: "all" | "builtin";
  /**
   * pi's resource loader (after `reload()`): its system prompt options, context files and skills build the
   * system prompt when `systemPrompt` is not given, and its extensions' tools and hooks join the session.
   */
  resourceLoader?: ResourceLoader;
  /** Models `session.cycleModel()` goes through (pi's `--models`); default: every model with configured auth. */
  scopedModels?: ScopedModel[];
  systemPrompt?: string;
  /** Default: a new persisted session of `cwd` under the home (or settings' `sessionDir`). */
  sessionManager?: SessionManager;
  settingsManager?: SettingsManager;
  authStorage?: AuthStorage;
  modelRegistry?: ModelRegistry;
  /** Replaces the provider call (tests, custom transports). Disables the API-key check. */
  streamFn?: StreamFn;
  /** Runtime API key for the chosen model's provider (never written). */
  apiKey?: string;
  steeringDelivery?: SteeringDelivery;
}

export interface CreateAgentSessionResult {
  session: AgentSession;
  /** The resource loader's extensions (an empty result without a loader): the runner, runtime and load errors. */
  extensionsResult: LoadExtensionsResult;
  /** Why the model differs from the one asked for or last used, when it does. */
  modelFallbackMessage?: string;
}

export const OFFLINE_MODEL_PROVIDER = "offline";
export const OFFLINE_MODEL_ID = "tiller-offline";

function offlineModel(): Model<Api> {
  const m = getModel(OFFLINE_MODEL_PROVIDER, OFFLINE_MODEL_ID);
  if (!m) throw new Error("the offline model is missing from the @tiller/ai catalog");
  return m;
}

function pickModel(
  options: CreateAgentSessionOptions,
  registry: ModelRegistry,
  settings: SettingsManager,
  sessionModel: { provider: string; modelId: string } | null,
): { model: Model<Api>; fallback?: string } {
  if (options.model) return { model: options.model };
  if (sessionModel) {
    const found = registry.find(sessionModel.provider, sessionModel.modelId);
    if (found) return { model: found };
  }
  const s = settings.get();
  if (s.defaultProvider && s.defaultModel) {
    const found = registry.find(s.defaultProvider, s.defaultModel);
    if (found) return { model: found };
    const fallback = `settings name model ${s.defaultProvider}/${s.defaultModel}, which is not known`;
    return { ...pickAvailable(registry, options), fallback };
  }
  return pickAvailable(registry, options);
}

function pickAvailable(registry: ModelRegistry, options: CreateAgentSessionOptions): { model: Model<Api> } {
  const order = getProviders().filter((p) => p !== OFFLINE_MODEL_PROVIDER);
  for (const provider of order) {
    if (!options.apiKey && !registry.authStorage.hasAuth(provider)) continue;
    const first = registry.getAll().find((m) => m.provider === provider);
    if (first) return { model: first };
  }
  return { model: offlineModel() };
}

/** Creates an AgentSession; restores the transcript when `sessionManager` holds an existing session. */
export async function createAgentSession(options: CreateAgentSessionOptions = {}): Promise<CreateAgentSessionResult> {
  const cwd = options.cwd ?? process.cwd();
  const home = options.home ?? options.agentDir ?? getTillerHome();
  const paths = getTillerPaths(home);
  const settingsManager = options.settingsManager ?? SettingsManager.create(cwd, home);
  const authStorage = options.authStorage ?? options.modelRegistry?.authStorage ?? AuthStorage.create(paths.auth);
  const modelRegistry = options.modelRegistry ?? ModelRegistry.create(authStorage, paths.models);
  const sessionDir = settingsManager.get().sessionDir;
  const sessionManager = options.sessionManager ?? SessionManager.create(cwd, sessionDir ? { sessionDir } : { home });

  const context = sessionManager.buildSessionContext();
  const { model, fallback } = pickModel(options, modelRegistry, settingsManager, context.model);
  if (options.apiKey) authStorage.setRuntimeApiKey(model.provider, options.apiKey);
  const restoredLevel = sessionManager.getEntries().some((e) => e.type === "thinking_level_change")
    ? (context.thinkingLevel as ThinkingLevel)
    : undefined;
  const requested = options.thinkingLevel ?? restoredLevel ?? settingsManager.get().defaultThinkingLevel ?? "medium";
  const thinkingLevel = clampThinkingLevel(model, requested) as ThinkingLevel;
  const settings = settingsManager.get();
  const { tools, registry, systemPrompt, systemPromptFor, bind } = resolveSessionTools(options, cwd);

  const agent = new Agent({
    initialState: {
      systemPrompt: systemPrompt ?? "",
      model,
      thinkingLevel,
      tools,
      messages: context.messages,
    },
    // A provider registered with `authHeader` also gets the key as a bearer header, resolved per request.
    streamFn:
      options.streamFn ??
      ((m, ctx, opts) => {
        const auth = modelRegistry.authHeaderFor(m, opts?.apiKey);
        return streamSimple(m, ctx, auth ? { ...opts, headers: { ...opts?.headers, ...auth } } : opts);
      }),
    // By provider, not the starting model: after setModel the new provider's models.json / registered key counts.
    getApiKey: (provider) => modelRegistry.getApiKeyForProvider(provider),
    steeringMode: settings.steeringMode,
    followUpMode: settings.followUpMode,
    sessionId: sessionManager.getSessionId(),
    ...(options.steeringDelivery ? { steeringDelivery: options.steeringDelivery } : {}),
  });
  const session = new AgentSession({
    agent,
    sessionManager,
    settingsManager,
    modelRegistry,
    requireAuth: options.streamFn === undefined,
    ...(options.resourceLoader ? { resourceLoader: options.resourceLoader } : {}),
    toolRegistry: registry,
    ...(systemPromptFor ? { systemPromptFor } : {}),
  });
  if (options.scopedModels) session.setScopedModels(options.scopedModels);
  await bind?.(session);
  // The given loader's extensions, or (without one) the session's own empty runner's.
  const extensionsResult = session.resourceLoader.getExtensions();
  return fallback ? { session, extensionsResult, modelFallbackMessage: fallback } : { session, extensionsResult };
}
