/**
 * pi's `InteractiveMode`: Tiller's interactive terminal UI (../interactive-mode.ts) run on an SDK
 * `AgentSessionRuntime`, with pi's options (initial messages and images, warnings to show). `/resume` switches the
 * runtime's session; quitting disposes the runtime. The UI itself is loaded when the mode starts, so importing
 * the package costs nothing for programs that never open it.
 */
import { setKeybindings } from "@mariozechner/pi-tui";
import type { AgentSessionRuntime } from "../../../runtime/agent-session-runtime.js";
import { setupOf } from "../../../runtime/setup-of.js";
import type { InteractiveApp } from "../interactive-mode.js";
import { loadKeybindings } from "./keybindings.js";
import { initTheme } from "./theme.js";
import type { InteractiveModeOptions } from "./types.js";

export class InteractiveMode {
  private app: InteractiveApp | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private runtimeHost: AgentSessionRuntime,
    private options: InteractiveModeOptions = {},
  ) {}

  /** Loads the UI, the theme setting and the keybindings (`keybindings.json` in the agent directory). */
  async init(): Promise<void> {
    if (this.app) return;
    const { InteractiveApp } = await import("../interactive-mode.js");
    const runtime = this.runtimeHost;
    const theme = (runtime.services.settingsManager.get() as { theme?: unknown }).theme;
    initTheme(typeof theme === "string" ? theme : undefined);
    const o = this.options;
    const notices: Array<{ message: string; level: "info" | "warning" | "error" }> = [];
    const { manager: keybindings, warning } = loadKeybindings(runtime.services.agentDir);
    if (warning) notices.push({ message: warning, level: "warning" });
    if (o.migratedProviders?.length) {
      notices.push({ message: `credentials moved to auth.json: ${o.migratedProviders.join(", ")}`, level: "warning" });
    }
    const fallback = o.modelFallbackMessage ?? runtime.modelFallbackMessage;
    if (fallback) notices.push({ message: fallback, level: "warning" });
    for (const d of runtime.diagnostics) notices.push({ message: d.message, level: d.type });
    const initial: Array<{ text: string; images?: NonNullable<InteractiveModeOptions["initialImages"]> }> = [];
    if (o.initialMessage !== undefined) {
      initial.push({ text: o.initialMessage, ...(o.initialImages?.length ? { images: o.initialImages } : {}) });
    }
    for (const m of o.initialMessages ?? []) initial.push({ text: m });
    setKeybindings(keybindings);
    this.app = new InteractiveApp(setupOf(runtime), {
      keybindings,
      initialMessages: initial,
      notices,
      openSession: async (path) => {
        await runtime.switchSession(path);
        return setupOf(runtime);
      },
      close: () => runtime.dispose(),
    });
  }

  /** Runs the UI until the user quits (Ctrl+D, or Ctrl+C twice); the runtime is disposed then. */
  async run(): Promise<void> {
    await this.init();
    this.running ??= this.ui().run();
    await this.running;
  }

  /** Shows the current branch of the session (what `run` shows of a resumed session). */
  renderInitialMessages(): void {
    this.ui().showBranch();
  }

  /** The next text the user submits, taken instead of being sent to the agent. */
  getUserInput(): Promise<string> {
    return this.ui().nextInput();
  }

  clearEditor(): void {
    this.ui().setEditorText("");
  }

  showError(errorMessage: string): void {
    this.ui().notice(errorMessage, "error");
  }

  showWarning(warningMessage: string): void {
    this.ui().notice(warningMessage, "warning");
  }

  showNewVersionNotification(newVersion: string): void {
    this.ui().notice(`version ${newVersion} is available`);
  }

  showPackageUpdateNotification(packages: string[]): void {
    this.ui().notice(`updates available: ${packages.join(", ")}`);
  }

  /** Stops drawing and reading the keyboard; the runtime stays open. */
  stop(): void {
    this.app?.stopUi();
  }

  private ui(): InteractiveApp {
    if (!this.app) throw new Error("InteractiveMode: call init() or run() first");
    return this.app;
  }
}
