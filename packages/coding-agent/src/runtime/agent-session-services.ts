/**
 * pi's two-step session construction: `createAgentSessionServices` builds what outlives one session (auth,
 * settings, models, loaded resources), `createAgentSessionFromServices` makes a session from them, with the
 * tools, the system prompt and the extensions wired as the CLI wires them.
 */
import type { ThinkingLevel } from "@tiller/agent";
import type { Model } from "@tiller/ai";
import { type CreateAgentSessionResult, createAgentSession } from "../agent-session/create-agent-session.js";
import { AuthStorage } from "../auth/auth-storage.js";
import type { LoadExtensionsResult } from "../extensions/extension-runtime.js";
import { extensionRunnerOf } from "../extensions/runner.js";
import type { ToolDefinition } from "../extensions/tool-definition.js";
import type { SessionStartEvent } from "../extensions/types.js";
import { getTillerHome, getTillerPaths } from "../home.js";
import { ModelRegistry } from "../models/model-registry.js";
import type { SessionManager } from "../session/session-manager.js";
import { SettingsManager } from "../settings/settings-manager.js";
import { DefaultResourceLoader, type DefaultResourceLoaderOptions, type ResourceLoader } from "./resource-loader.js";

export interface AgentSessionRuntimeDiagnostic {
  type: "info" | "warning" | "error";
  message: string;
}

export interface AgentSessionServices {
  cwd: string;
  agentDir: string;
  authStorage: AuthStorage;
  settingsManager: SettingsManager;
  modelRegistry: ModelRegistry;
  resourceLoader: ResourceLoader;
  diagnostics: AgentSessionRuntimeDiagnostic[];
}

export interface CreateAgentSessionServicesOptions {
  cwd: string;
  agentDir?: string;
  authStorage?: AuthStorage;
  settingsManager?: SettingsManager;
  modelRegistry?: ModelRegistry;
  extensionFlagValues?: Map<string, boolean | string>;
  resourceLoaderOptions?: Omit<DefaultResourceLoaderOptions, "cwd" | "agentDir" | "settingsManager">;
}

/** Builds and loads the services of `cwd`; problems found on the way are in `diagnostics`, never thrown. */
export async function createAgentSessionServices(
  options: CreateAgentSessionServicesOptions,
): Promise<AgentSessionServices> {
  const cwd = options.cwd;
  const agentDir = options.agentDir ?? getTillerHome();
  const paths = getTillerPaths(agentDir);
  const settingsManager = options.settingsManager ?? SettingsManager.create(cwd, agentDir);
  const authStorage = options.authStorage ?? options.modelRegistry?.authStorage ?? AuthStorage.create(paths.auth);
  const modelRegistry = options.modelRegistry ?? ModelRegistry.create(authStorage, paths.models);
  const resourceLoader = new DefaultResourceLoader({
    ...options.resourceLoaderOptions,
    cwd,
    agentDir,
    settingsManager,
  });
  await resourceLoader.reload();
  const diagnostics: AgentSessionRuntimeDiagnostic[] = [
    ...authStorage.errors.map((message) => ({ type: "warning" as const, message })),
    ...modelRegistry.errors.map((message) => ({ type: "warning" as const, message })),
    ...resourceLoader.getSkills().diagnostics.map((d) => ({
      type: d.type === "error" ? ("error" as const) : ("warning" as const),
      message: d.path ? `${d.path}: ${d.message}` : d.message,
    })),
    ...resourceLoader
      .getExtensions()
      .errors.map((e) => ({ type: "error" as const, message: `extension ${e.path}: ${e.error}` })),
  ];
  diagnostics.push(...applyFlagValues(resourceLoader.getExtensions(), options.extensionFlagValues));
  return { cwd, agentDir, authStorage, settingsManager, modelRegistry, resourceLoader, diagnostics };
}

export interface CreateAgentSessionFromServicesOptions {
  services: AgentSessionServices;
  sessionManager: SessionManager;
  sessionStartEvent?: SessionStartEvent;
  model?: Model;
  thinkingLevel?: ThinkingLevel;
  /** Accepted for pi's signature; Tiller has no model cycling list yet. */
  scopedModels?: Array<{ model: Model; thinkingLevel?: ThinkingLevel }>;
  /** Names of the built-in tools to enable (default: read, bash, edit, write). */
  tools?: string[];
  /** No built-in tools at all (`true`), or none unless named in `tools` ("builtin"). */
  noTools?: boolean | "builtin" | "all";
  customTools?: ToolDefinition[];
}

const DEFAULT_TOOL_NAMES = ["read", "bash", "edit", "write"];

/** A session of `sessionManager` built from `services`, with extensions bound and `session_start` emitted. */
export async function createAgentSessionFromServices(
  options: CreateAgentSessionFromServicesOptions,
): Promise<CreateAgentSessionResult> {
  const { services } = options;
  const noTools = options.noTools === true || options.noTools === "all";
  const result = await createAgentSession({
    cwd: services.cwd,
    agentDir: services.agentDir,
    authStorage: services.authStorage,
    settingsManager: services.settingsManager,
    modelRegistry: services.modelRegistry,
    sessionManager: options.sessionManager,
    resourceLoader: services.resourceLoader,
    tools: noTools ? [] : (options.tools ?? DEFAULT_TOOL_NAMES),
    ...(options.customTools ? { customTools: options.customTools } : {}),
    ...(noTools ? { noTools: "all" as const } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.thinkingLevel ? { thinkingLevel: options.thinkingLevel } : {}),
  });
  const runner = extensionRunnerOf(services.resourceLoader.getExtensions());
  const start = options.sessionStartEvent ?? {
    type: "session_start" as const,
    reason: options.sessionManager.getEntryCount() > 0 ? ("resume" as const) : ("startup" as const),
  };
  await runner.emit({ ...start, sessionId: result.session.sessionId });
  await result.session.extendResourcesFromExtensions(start.reason === "reload" ? "reload" : "startup");
  return result;
}

/**
 * pi's `extensionFlagValues` (a CLI's unknown `--name[=value]` options): a boolean flag is set to `true`, a
 * string flag to its value; a flag no extension registered, or a string flag without a value, is an error
 * diagnostic (as in pi) and sets nothing.
 */
function applyFlagValues(
  extensions: LoadExtensionsResult,
  values: ReadonlyMap<string, boolean | string> | undefined,
): AgentSessionRuntimeDiagnostic[] {
  if (!values || values.size === 0) return [];
  const registered = extensionRunnerOf(extensions).getFlags();
  const out: AgentSessionRuntimeDiagnostic[] = [];
  const unknown: string[] = [];
  for (const [name, value] of values) {
    const flag = registered.get(name);
    if (!flag) unknown.push(`--${name}`);
    else if (flag.type === "boolean") extensions.runtime.flagValues.set(name, true);
    else if (typeof value === "string") extensions.runtime.flagValues.set(name, value);
    else out.push({ type: "error", message: `Extension flag "--${name}" requires a value` });
  }
  if (unknown.length > 0)
    out.push({ type: "error", message: `Unknown option${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ")}` });
  return out;
}
