/**
 * Type-level drop-in check for @mariozechner/pi-coding-agent 0.73.1: each pi type listed here has a Tiller type
 * of the same name that a pi-typed program can use in its place. Type-checked by test/pi-exports.test.ts (tsc on
 * this file alone must report nothing) against pi's and Tiller's declarations without their classes' private and
 * protected members (test/public-declarations.ts: they make classes nominal, and no program can use them), so
 * `npm run check` leaves this file out. That test also fails when a pi type is neither checked here nor listed,
 * with its reason, in `PENDING_PI_TYPES`.
 *
 * - `input`: values a program builds and hands to Tiller (options, entries, settings): pi's type → Tiller's.
 * - `output`: values Tiller hands back (results, tree nodes, events): Tiller's type → pi's, so code reading them
 *   as pi's type keeps compiling.
 * - `classes`: a Tiller instance has every public member of pi's class (pending ones: `PENDING_PI_CLASSES`);
 *   pi's `_`-prefixed members (`SessionManager._persist`) are internal and not part of the check.
 */
import type * as Pi from "@mariozechner/pi-coding-agent";
import type { AgentEvent } from "@tiller/agent";
import type * as T from "@tiller/coding-agent";
// pi's own classes (in `Pi`, pi's classes Tiller exports are Tiller's: test/public-declarations.ts).
import type * as PiClass from "pi-declared/pi-coding-agent";

/** Tiller's agent events minus the ones it adds (approvals: pi has none), the part a pi-typed listener knows. */
type PiKnownEvent = Exclude<AgentEvent, { type: "tool_approval_request" | "tool_approval_end" }>;

/** The extension events a pi-typed handler knows: Tiller's approval events are an addition (as RpcClient's are). */
type PiKnownExtensionEvent = Exclude<T.ExtensionEvent, { type: "tool_approval_request" | "tool_approval_end" }>;

/** A class's instance members as properties (method parameters are then compared strictly, not bivariantly). */
type PublicOf<C> = { [K in keyof C]: C[K] };
/** pi's public surface without its `_`-prefixed members (public in TypeScript, internal by pi's convention). */
type PiApiOf<C> = { [K in keyof C as K extends `_${string}` ? never : K]: C[K] };

/** pi's UI context members that hand out terminal-UI components (pi's Theme class, TUI components): Tiller's TUI has its own. */
type PiTuiUiMembers =
  | "theme"
  | "custom"
  | "setFooter"
  | "setHeader"
  | "setEditorComponent"
  | "getEditorComponent"
  | "addAutocompleteProvider"
  | "getTheme"
  | "setTheme"
  | "setWidget";
type PiUiPart = Omit<Pi.ExtensionUIContext, PiTuiUiMembers> & {
  setWidget(key: string, content: string[] | undefined, options?: Pi.ExtensionWidgetOptions): void;
};
/**
 * pi's extension context as Tiller provides it: every member; `ui` without the terminal-UI members, and
 * `modelRegistry` Tiller's (pi's class is nominal through private members; its public members are Tiller's).
 */
type PiContextPart = Omit<Pi.ExtensionContext, "ui" | "modelRegistry"> & {
  ui: PiUiPart;
  modelRegistry: Omit<PublicOf<Pi.ModelRegistry>, "authStorage">;
};
/** A pi tool definition whose `execute` reads only the context members Tiller provides (`PiContextPart`). */
/** pi's command context as Tiller provides it: the context part, and the session controls but `withSession`'s argument (Tiller's command context). */
type PiCommandContextPart = PiContextPart & Pick<Pi.ExtensionCommandContext, "waitForIdle" | "navigateTree" | "reload">;
type WithContext<D extends { execute: (...a: never[]) => unknown }, C> = Omit<D, "execute"> & {
  execute(
    ...args: Parameters<D["execute"]> extends [...infer H, unknown] ? [...H, C] : never
  ): ReturnType<D["execute"]>;
};

type PiRegisteredToolPart = Omit<Pi.RegisteredTool, "definition"> & {
  definition: WithContext<Pi.ToolDefinition, PiContextPart>;
};
/** A pi command whose handler reads only the command-context members Tiller provides (its completions are TUI). */
type PiCommandPart<C> = Omit<C, "handler"> & { handler: (args: string, ctx: PiCommandContextPart) => Promise<void> };
/** A pi shortcut whose handler reads only the context members Tiller provides. */
type PiShortcutPart = Omit<Pi.ExtensionShortcut, "handler"> & { handler: (ctx: PiContextPart) => Promise<void> | void };
type PiUserBashHandlerPart = (
  event: Pi.UserBashEvent,
  ctx: PiContextPart,
) => ReturnType<Pi.ExtensionHandler<Pi.UserBashEvent, Pi.UserBashEventResult>>;

export const input = {
  AgentSessionEvent: (x: Pi.AgentSessionEvent): T.AgentSessionEvent => x,
  ParsedSkillBlock: (x: Pi.ParsedSkillBlock): T.ParsedSkillBlock => x,
  PromptOptions: (x: Pi.PromptOptions): T.PromptOptions => x,
  SessionStats: (x: Pi.SessionStats): T.SessionStats => x,
  ApiKeyCredential: (x: Pi.ApiKeyCredential): T.ApiKeyCredential => x,
  AuthCredential: (x: Pi.AuthCredential): T.AuthCredential => x,
  AuthStatus: (x: Pi.AuthStatus): T.AuthStatus => x,
  AuthStorageBackend: (x: Pi.AuthStorageBackend): T.AuthStorageBackend => x,
  OAuthCredential: (x: Pi.OAuthCredential): T.OAuthCredential => x,
  BranchPreparation: (x: Pi.BranchPreparation): T.BranchPreparation => x,
  BranchSummaryResult: (x: Pi.BranchSummaryResult): T.BranchSummaryResult => x,
  CollectEntriesResult: (x: Pi.CollectEntriesResult): T.CollectEntriesResult => x,
  CompactionResult: (x: Pi.CompactionResult): T.CompactionResult => x,
  CutPointResult: (x: Pi.CutPointResult): T.CutPointResult => x,
  FileOperations: (x: Pi.FileOperations): T.FileOperations => x,
  GenerateBranchSummaryOptions: (x: Pi.GenerateBranchSummaryOptions): T.GenerateBranchSummaryOptions => x,
  EventBus: (x: Pi.EventBus): T.EventBus => x,
  EventBusController: (x: Pi.EventBusController): T.EventBusController => x,
  AgentEndEvent: (x: Pi.AgentEndEvent): T.AgentEndEvent => x,
  AgentStartEvent: (x: Pi.AgentStartEvent): T.AgentStartEvent => x,
  AgentToolResult: (x: Pi.AgentToolResult<unknown>): T.AgentToolResult<unknown> => x,
  AgentToolUpdateCallback: (x: Pi.AgentToolUpdateCallback): T.AgentToolUpdateCallback => x,
  BashToolCallEvent: (x: Pi.BashToolCallEvent): T.BashToolCallEvent => x,
  BeforeAgentStartEvent: (x: Pi.BeforeAgentStartEvent): T.BeforeAgentStartEvent => x,
  BeforeAgentStartEventResult: (x: Pi.BeforeAgentStartEventResult): T.BeforeAgentStartEventResult => x,
  ContextEvent: (x: Pi.ContextEvent): T.ContextEvent => x,
  CustomToolCallEvent: (x: Pi.CustomToolCallEvent): T.CustomToolCallEvent => x,
  EditToolCallEvent: (x: Pi.EditToolCallEvent): T.EditToolCallEvent => x,
  FindToolCallEvent: (x: Pi.FindToolCallEvent): T.FindToolCallEvent => x,
  GrepToolCallEvent: (x: Pi.GrepToolCallEvent): T.GrepToolCallEvent => x,
  InputEvent: (x: Pi.InputEvent): T.InputEvent => x,
  InputEventResult: (x: Pi.InputEventResult): T.InputEventResult => x,
  LsToolCallEvent: (x: Pi.LsToolCallEvent): T.LsToolCallEvent => x,
  ReadToolCallEvent: (x: Pi.ReadToolCallEvent): T.ReadToolCallEvent => x,
  SessionShutdownEvent: (x: Pi.SessionShutdownEvent): T.SessionShutdownEvent => x,
  SourceInfo: (x: Pi.SourceInfo): T.SourceInfo => x,
  ToolCallEvent: (x: Pi.ToolCallEvent): T.ToolCallEvent => x,
  ToolCallEventResult: (x: Pi.ToolCallEventResult): T.ToolCallEventResult => x,
  ToolExecutionMode: (x: Pi.ToolExecutionMode): T.ToolExecutionMode => x,
  ToolResultEvent: (x: Pi.ToolResultEvent): T.ToolResultEvent => x,
  TurnEndEvent: (x: Pi.TurnEndEvent): T.TurnEndEvent => x,
  TurnStartEvent: (x: Pi.TurnStartEvent): T.TurnStartEvent => x,
  WriteToolCallEvent: (x: Pi.WriteToolCallEvent): T.WriteToolCallEvent => x,
  PackageManager: (x: Pi.PackageManager): T.PackageManager => x,
  PathMetadata: (x: Pi.PathMetadata): T.PathMetadata => x,
  ProgressCallback: (x: Pi.ProgressCallback): T.ProgressCallback => x,
  ProgressEvent: (x: Pi.ProgressEvent): T.ProgressEvent => x,
  ResolvedPaths: (x: Pi.ResolvedPaths): T.ResolvedPaths => x,
  ResolvedResource: (x: Pi.ResolvedResource): T.ResolvedResource => x,
  ResourceCollision: (x: Pi.ResourceCollision): T.ResourceCollision => x,
  ResourceDiagnostic: (x: Pi.ResourceDiagnostic): T.ResourceDiagnostic => x,
  AgentSessionRuntimeDiagnostic: (x: Pi.AgentSessionRuntimeDiagnostic): T.AgentSessionRuntimeDiagnostic => x,
  BranchSummaryEntry: (x: Pi.BranchSummaryEntry): T.BranchSummaryEntry => x,
  CompactionEntry: (x: Pi.CompactionEntry): T.CompactionEntry => x,
  CustomEntry: (x: Pi.CustomEntry): T.CustomEntry => x,
  CustomMessageEntry: (x: Pi.CustomMessageEntry): T.CustomMessageEntry => x,
  FileEntry: (x: Pi.FileEntry): T.FileEntry => x,
  ModelChangeEntry: (x: Pi.ModelChangeEntry): T.ModelChangeEntry => x,
  NewSessionOptions: (x: Pi.NewSessionOptions): T.NewSessionOptions => x,
  SessionContext: (x: Pi.SessionContext): T.SessionContext => x,
  SessionEntry: (x: Pi.SessionEntry): T.SessionEntry => x,
  SessionEntryBase: (x: Pi.SessionEntryBase): T.SessionEntryBase => x,
  SessionHeader: (x: Pi.SessionHeader): T.SessionHeader => x,
  SessionInfoEntry: (x: Pi.SessionInfoEntry): T.SessionInfoEntry => x,
  SessionMessageEntry: (x: Pi.SessionMessageEntry): T.SessionMessageEntry => x,
  ThinkingLevelChangeEntry: (x: Pi.ThinkingLevelChangeEntry): T.ThinkingLevelChangeEntry => x,
  ImageSettings: (x: Pi.ImageSettings): T.ImageSettings => x,
  PackageSource: (x: Pi.PackageSource): T.PackageSource => x,
  LoadSkillsFromDirOptions: (x: Pi.LoadSkillsFromDirOptions): T.LoadSkillsFromDirOptions => x,
  BashOperations: (x: Pi.BashOperations): T.BashOperations => x,
  BashSpawnContext: (x: Pi.BashSpawnContext): T.BashSpawnContext => x,
  BashSpawnHook: (x: Pi.BashSpawnHook): T.BashSpawnHook => x,
  BashToolDetails: (x: Pi.BashToolDetails): T.BashToolDetails => x,
  BashToolInput: (x: Pi.BashToolInput): T.BashToolInput => x,
  BashToolOptions: (x: Pi.BashToolOptions): T.BashToolOptions => x,
  EditOperations: (x: Pi.EditOperations): T.EditOperations => x,
  EditToolDetails: (x: Pi.EditToolDetails): T.EditToolDetails => x,
  EditToolInput: (x: Pi.EditToolInput): T.EditToolInput => x,
  EditToolOptions: (x: Pi.EditToolOptions): T.EditToolOptions => x,
  FindToolInput: (x: Pi.FindToolInput): T.FindToolInput => x,
  GrepToolInput: (x: Pi.GrepToolInput): T.GrepToolInput => x,
  LsToolDetails: (x: Pi.LsToolDetails): T.LsToolDetails => x,
  LsToolInput: (x: Pi.LsToolInput): T.LsToolInput => x,
  ReadToolDetails: (x: Pi.ReadToolDetails): T.ReadToolDetails => x,
  ReadToolInput: (x: Pi.ReadToolInput): T.ReadToolInput => x,
  TruncationOptions: (x: Pi.TruncationOptions): T.TruncationOptions => x,
  TruncationResult: (x: Pi.TruncationResult): T.TruncationResult => x,
  WriteOperations: (x: Pi.WriteOperations): T.WriteOperations => x,
  WriteToolInput: (x: Pi.WriteToolInput): T.WriteToolInput => x,
  WriteToolOptions: (x: Pi.WriteToolOptions): T.WriteToolOptions => x,
  ReadOperations: (x: Pi.ReadOperations): T.ReadOperations => x,
  ReadToolOptions: (x: Pi.ReadToolOptions): T.ReadToolOptions => x,
  GrepOperations: (x: Pi.GrepOperations): T.GrepOperations => x,
  GrepToolOptions: (x: Pi.GrepToolOptions): T.GrepToolOptions => x,
  FindOperations: (x: Pi.FindOperations): T.FindOperations => x,
  FindToolOptions: (x: Pi.FindToolOptions): T.FindToolOptions => x,
  LsOperations: (x: Pi.LsOperations): T.LsOperations => x,
  LsToolOptions: (x: Pi.LsToolOptions): T.LsToolOptions => x,
  ToolsOptions: (x: Pi.ToolsOptions): T.ToolsOptions => x,
  // A pi tool's execute gets Tiller's context: every pi member (see PiContextPart).
  ToolDefinition: (x: WithContext<Pi.ToolDefinition, PiContextPart>): T.ToolDefinition => x,
  RegisteredTool: (x: PiRegisteredToolPart): T.RegisteredTool => x,
  RegisteredCommand: (x: PiCommandPart<Pi.RegisteredCommand>): T.RegisteredCommand => x,
  ResolvedCommand: (x: PiCommandPart<Pi.ResolvedCommand>): T.ResolvedCommand => x,
  ExtensionHandler: (x: PiUserBashHandlerPart): T.ExtensionHandler<T.UserBashEvent, T.UserBashEventResult> => x,
  ExtensionUIDialogOptions: (x: Pi.ExtensionUIDialogOptions): T.ExtensionUIDialogOptions => x,
  ExtensionWidgetOptions: (x: Pi.ExtensionWidgetOptions): T.ExtensionWidgetOptions => x,
  WidgetPlacement: (x: Pi.WidgetPlacement): T.WidgetPlacement => x,
  CompactOptions: (x: Pi.CompactOptions): T.CompactOptions => x,
  UserBashEventResult: (x: Pi.UserBashEventResult): T.UserBashEventResult => x,
  BeforeProviderRequestEventResult: (x: Pi.BeforeProviderRequestEventResult): T.BeforeProviderRequestEventResult => x,
  ExtensionFlag: (x: Pi.ExtensionFlag): T.ExtensionFlag => x,
  ExtensionShortcut: (x: PiShortcutPart): T.ExtensionShortcut => x,
  ProviderConfig: (x: Pi.ProviderConfig): T.ProviderConfig => x,
  ProviderModelConfig: (x: Pi.ProviderModelConfig): T.ProviderModelConfig => x,
  InputSource: (x: Pi.InputSource): T.InputSource => x,
  SkillFrontmatter: (x: Pi.SkillFrontmatter): T.SkillFrontmatter => x,
  ExtensionActions: (x: Pi.ExtensionActions): T.ExtensionActions => x,
  ExtensionRuntime: (x: Pi.ExtensionRuntime): T.ExtensionRuntime => x,
  ModelInfo: (x: Pi.ModelInfo): T.ModelInfo => x,
  PrintModeOptions: (x: Pi.PrintModeOptions): T.PrintModeOptions => x,
  RpcClientOptions: (x: Pi.RpcClientOptions): T.RpcClientOptions => x,
  RpcCommand: (x: Pi.RpcCommand): T.RpcCommand => x,
  // Tiller's event stream adds the approval events (pi has none); pi's listener handles the rest.
  RpcEventListener: (x: Pi.RpcEventListener): ((event: PiKnownEvent) => void) => x,
  RpcResponse: (x: Pi.RpcResponse): T.RpcResponse => x,
  VisualTruncateResult: (x: Pi.VisualTruncateResult): T.VisualTruncateResult => x,
  ModelCycleResult: (x: Pi.ModelCycleResult): T.ModelCycleResult => x,
  ExecOptions: (x: Pi.ExecOptions): T.ExecOptions => x,
  SlashCommandSource: (x: Pi.SlashCommandSource): T.SlashCommandSource => x,
  // Terminal UI (src/cli/tui/pi/).
  AppKeybinding: (x: Pi.AppKeybinding): T.AppKeybinding => x,
  AutocompleteProviderFactory: (x: Pi.AutocompleteProviderFactory): T.AutocompleteProviderFactory => x,
  InteractiveModeOptions: (x: Pi.InteractiveModeOptions): T.InteractiveModeOptions => x,
  KeybindingsManager: (x: PiClass.KeybindingsManager): T.KeybindingsManager => x,
  MessageRenderer: (x: Pi.MessageRenderer): T.MessageRenderer => x,
  ReadonlyFooterDataProvider: (x: Pi.ReadonlyFooterDataProvider): T.ReadonlyFooterDataProvider => x,
  RenderDiffOptions: (x: Pi.RenderDiffOptions): T.RenderDiffOptions => x,
  SettingsCallbacks: (x: Pi.SettingsCallbacks): T.SettingsCallbacks => x,
  SettingsConfig: (x: Pi.SettingsConfig): T.SettingsConfig => x,
  TerminalInputHandler: (x: Pi.TerminalInputHandler): T.TerminalInputHandler => x,
  ThemeColor: (x: Pi.ThemeColor): T.ThemeColor => x,
  ToolExecutionOptions: (x: Pi.ToolExecutionOptions): T.ToolExecutionOptions => x,
  WorkingIndicatorOptions: (x: Pi.WorkingIndicatorOptions): T.WorkingIndicatorOptions => x,
};

/**
 * pi's ExtensionAPI is still pending (its handlers take pi's context, its renderers pi's Theme: classes with private
 * members); all of it, with the handlers reading the context members Tiller provides (PiContextPart, PiShortcutPart)
 * and renderers the Theme's public members, but for on/registerTool/registerCommand, is checked here under a name
 * that is not pi's.
 */
type PiApiPart = Omit<
  Pi.ExtensionAPI,
  "on" | "registerTool" | "registerCommand" | "registerShortcut" | "registerMessageRenderer"
> & {
  registerShortcut(
    shortcut: Pi.ExtensionShortcut["shortcut"],
    options: Omit<PiShortcutPart, "shortcut" | "extensionPath">,
  ): void;
  /** A pi renderer that reads the theme's public members (pi's Theme class is nominal: private fields). */
  registerMessageRenderer<M = unknown>(
    customType: string,
    renderer: (
      ...args: Parameters<Pi.MessageRenderer<M>> extends [infer A, infer B, unknown]
        ? [A, B, PublicOf<Pi.Theme>]
        : never
    ) => ReturnType<Pi.MessageRenderer<M>>,
  ): void;
};
export const parts = {
  ExtensionAPIWithoutTui: (x: T.ExtensionAPI): PiApiPart => x,
};

export const output = {
  ExtensionEvent: (x: PiKnownExtensionEvent): Pi.ExtensionEvent => x,
  SessionInfo: (x: T.SessionInfo): Pi.SessionInfo => x,
  ToolInfo: (x: T.ToolInfo): Pi.ToolInfo => x,
  ExtensionError: (x: T.ExtensionError): Pi.ExtensionError => x,
  ExecResult: (x: T.ExecResult): Pi.ExecResult => x,
  SlashCommandInfo: (x: T.SlashCommandInfo): Pi.SlashCommandInfo => x,
  RpcSessionState: (x: T.RpcSessionState): Pi.RpcSessionState => x,
  AgentSessionEventListener: (x: T.AgentSessionEventListener): Pi.AgentSessionEventListener => x,
  ContextUsage: (x: T.ContextUsage): Pi.ContextUsage => x,
  SessionStartEvent: (x: T.SessionStartEvent): Pi.SessionStartEvent => x,
  PromptTemplate: (x: T.PromptTemplate): Pi.PromptTemplate => x,
  CompactionSettings: (x: T.CompactionSettings): Pi.CompactionSettings => x,
  RetrySettings: (x: T.RetrySettings): Pi.RetrySettings => x,
  LoadSkillsResult: (x: T.LoadSkillsResult): Pi.LoadSkillsResult => x,
  Skill: (x: T.Skill): Pi.Skill => x,
  FindToolDetails: (x: T.FindToolDetails): Pi.FindToolDetails => x,
  GrepToolDetails: (x: T.GrepToolDetails): Pi.GrepToolDetails => x,
  // Terminal UI: options Tiller hands to pi-typed renderers.
  MessageRenderOptions: (x: T.MessageRenderOptions): Pi.MessageRenderOptions => x,
  ToolRenderResultOptions: (x: T.ToolRenderResultOptions): Pi.ToolRenderResultOptions => x,
  ThemeColorOut: (x: T.ThemeColor): Pi.ThemeColor => x,
  AppKeybindingOut: (x: T.AppKeybinding): Pi.AppKeybinding => x,
  ExtensionContext: (x: T.ExtensionContext): PiContextPart => x,
  ExtensionCommandContext: (x: T.ExtensionCommandContext): PiCommandContextPart => x,
  ExtensionUIContext: (x: T.ExtensionUIContext): PiUiPart => x,
  SessionBeforeCompactEvent: (x: T.SessionBeforeCompactEvent): Pi.SessionBeforeCompactEvent => x,
  SessionCompactEvent: (x: T.SessionCompactEvent): Pi.SessionCompactEvent => x,
  SessionBeforeForkEvent: (x: T.SessionBeforeForkEvent): Pi.SessionBeforeForkEvent => x,
  SessionBeforeSwitchEvent: (x: T.SessionBeforeSwitchEvent): Pi.SessionBeforeSwitchEvent => x,
  UserBashEvent: (x: T.UserBashEvent): Pi.UserBashEvent => x,
  // What handlers receive (the input check above: what a pi program may emit through the runner).
  SessionShutdownEvent: (x: T.SessionShutdownEvent): Pi.SessionShutdownEvent => x,
  SessionBeforeTreeEvent: (x: T.SessionBeforeTreeEvent): Pi.SessionBeforeTreeEvent => x,
  SessionTreeEvent: (x: T.SessionTreeEvent): Pi.SessionTreeEvent => x,
  BeforeProviderRequestEvent: (x: T.BeforeProviderRequestEvent): Pi.BeforeProviderRequestEvent => x,
};

/** Classes: a Tiller instance offers every public member of pi's with a compatible type. */
export const classes = {
  FileAuthStorageBackend: (x: T.FileAuthStorageBackend): PublicOf<PiClass.FileAuthStorageBackend> => x,
  AuthStorage: (x: T.AuthStorage): PublicOf<PiClass.AuthStorage> => x,
  ModelRegistry: (x: T.ModelRegistry): PublicOf<PiClass.ModelRegistry> => x,
  InMemoryAuthStorageBackend: (x: T.InMemoryAuthStorageBackend): PublicOf<PiClass.InMemoryAuthStorageBackend> => x,
  DefaultPackageManager: (x: T.DefaultPackageManager): PublicOf<PiClass.DefaultPackageManager> => x,
  SessionManager: (x: T.SessionManager): PiApiOf<Pi.SessionManager> => x,
  SettingsManager: (x: T.SettingsManager): PublicOf<PiClass.SettingsManager> => x,
  Theme: (x: T.Theme): PublicOf<PiClass.Theme> => x,
  KeybindingsManagerOut: (x: T.KeybindingsManager): PublicOf<PiClass.KeybindingsManager> => x,
  ArminComponent: (x: T.ArminComponent): PublicOf<PiClass.ArminComponent> => x,
  AssistantMessageComponent: (x: T.AssistantMessageComponent): PublicOf<PiClass.AssistantMessageComponent> => x,
  BashExecutionComponent: (x: T.BashExecutionComponent): PublicOf<PiClass.BashExecutionComponent> => x,
  BorderedLoader: (x: T.BorderedLoader): PublicOf<PiClass.BorderedLoader> => x,
  BranchSummaryMessageComponent: (
    x: T.BranchSummaryMessageComponent,
  ): PublicOf<PiClass.BranchSummaryMessageComponent> => x,
  // biome-ignore format: pi-exports.test.ts reads one check per line
  CompactionSummaryMessageComponent: (x: T.CompactionSummaryMessageComponent): PublicOf<PiClass.CompactionSummaryMessageComponent> => x,
  CustomEditor: (x: T.CustomEditor): PublicOf<PiClass.CustomEditor> => x,
  CustomMessageComponent: (x: T.CustomMessageComponent): PublicOf<PiClass.CustomMessageComponent> => x,
  DynamicBorder: (x: T.DynamicBorder): PublicOf<PiClass.DynamicBorder> => x,
  ExtensionEditorComponent: (x: T.ExtensionEditorComponent): PublicOf<PiClass.ExtensionEditorComponent> => x,
  ExtensionInputComponent: (x: T.ExtensionInputComponent): PublicOf<PiClass.ExtensionInputComponent> => x,
  ExtensionSelectorComponent: (x: T.ExtensionSelectorComponent): PublicOf<PiClass.ExtensionSelectorComponent> => x,
  InteractiveMode: (x: T.InteractiveMode): PublicOf<PiClass.InteractiveMode> => x,
  LoginDialogComponent: (x: T.LoginDialogComponent): PublicOf<PiClass.LoginDialogComponent> => x,
  ModelSelectorComponent: (x: T.ModelSelectorComponent): PublicOf<PiClass.ModelSelectorComponent> => x,
  OAuthSelectorComponent: (x: T.OAuthSelectorComponent): PublicOf<PiClass.OAuthSelectorComponent> => x,
  SettingsSelectorComponent: (x: T.SettingsSelectorComponent): PublicOf<PiClass.SettingsSelectorComponent> => x,
  ShowImagesSelectorComponent: (x: T.ShowImagesSelectorComponent): PublicOf<PiClass.ShowImagesSelectorComponent> => x,
  // biome-ignore format: pi-exports.test.ts reads one check per line
  SkillInvocationMessageComponent: (x: T.SkillInvocationMessageComponent): PublicOf<PiClass.SkillInvocationMessageComponent> => x,
  ThemeSelectorComponent: (x: T.ThemeSelectorComponent): PublicOf<PiClass.ThemeSelectorComponent> => x,
  ThinkingSelectorComponent: (x: T.ThinkingSelectorComponent): PublicOf<PiClass.ThinkingSelectorComponent> => x,
  ToolExecutionComponent: (x: T.ToolExecutionComponent): PublicOf<PiClass.ToolExecutionComponent> => x,
  UserMessageComponent: (x: T.UserMessageComponent): PublicOf<PiClass.UserMessageComponent> => x,
};
