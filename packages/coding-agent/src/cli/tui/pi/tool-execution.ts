/**
 * pi's tool call blocks over Tiller's `ToolItem` (../tool-item.ts): the one-line header with state, name, key
 * arguments and elapsed time, the output collapsed to a few lines unless expanded, edits as coloured diffs.
 * A tool definition's own `renderCall`/`renderResult` (pi's extension renderers) draw in place of Tiller's
 * header or body when the definition has them.
 */
import { type Component, Container } from "@mariozechner/pi-tui";
import type { TruncationResult } from "../../../tools/truncate.js";
import { type ToolDisplay, ToolItem } from "../tool-item.js";
import { currentTheme, type Theme } from "./theme.js";
import type { ToolExecutionOptions, ToolRenderResultOptions } from "./types.js";

/** What a component needs of its host: a way to ask for a frame (pi-tui's TUI and Tiller's renderer have it). */
export interface RenderHost {
  requestRender(force?: boolean): void;
}

/** A tool result as the UI receives it. */
export interface ToolResultView {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  details?: unknown;
  isError: boolean;
}

interface RenderContext {
  args: unknown;
  toolCallId: string;
  invalidate: () => void;
  lastComponent: Component | undefined;
  state: Record<string, unknown>;
  cwd: string;
  executionStarted: boolean;
  argsComplete: boolean;
  isPartial: boolean;
  expanded: boolean;
  showImages: boolean;
  isError: boolean;
}

/** The renderer hooks of a pi tool definition (read structurally: any definition object may carry them). */
interface RendererHooks {
  renderCall?: (args: unknown, theme: Theme, context: RenderContext) => Component;
  renderResult?: (
    result: ToolResultView,
    options: ToolRenderResultOptions,
    theme: Theme,
    context: RenderContext,
  ) => Component;
}

export class ToolExecutionComponent extends Container {
  private item: ToolItem;
  private display: ToolDisplay = { expanded: false };
  private hooks: RendererHooks;
  private args: unknown;
  private result: ToolResultView | undefined;
  private partial = false;
  private started = false;
  private argsComplete = false;
  private showImages: boolean;
  private imageWidthCells: number | undefined;
  private state: Record<string, unknown> = {};
  private lastCall: Component | undefined;
  private lastResult: Component | undefined;

  constructor(
    toolName: string,
    private toolCallId: string,
    args: unknown,
    options: ToolExecutionOptions | undefined,
    toolDefinition: object | undefined,
    private ui: RenderHost,
    private cwd: string,
  ) {
    super();
    this.item = new ToolItem(toolCallId, toolName, this.display);
    this.hooks = (toolDefinition ?? {}) as RendererHooks;
    this.showImages = options?.showImages ?? true;
    this.imageWidthCells = options?.imageWidthCells;
    this.args = args;
    this.item.setArgs(toolName, args);
    // A child for code that walks the tree; drawing goes through render() below.
    this.addChild(this.item);
  }

  updateArgs(args: unknown): void {
    this.args = args;
    this.item.setArgs("", args);
    this.ui.requestRender();
  }

  markExecutionStarted(): void {
    this.started = true;
    this.item.start(this.args);
    this.ui.requestRender();
  }

  setArgsComplete(): void {
    this.argsComplete = true;
  }

  updateResult(result: ToolResultView, isPartial = false): void {
    this.result = result;
    this.partial = isPartial;
    if (isPartial) {
      if (!this.started) this.markExecutionStarted();
      this.item.update(result);
    } else this.item.end(result, result.isError);
    this.ui.requestRender();
  }

  setExpanded(expanded: boolean): void {
    this.display.expanded = expanded;
    this.item.invalidate();
  }

  setShowImages(show: boolean): void {
    this.showImages = show;
  }

  setImageWidthCells(width: number): void {
    this.imageWidthCells = width;
  }

  /** Width of inline images in cells, as set (Tiller shows a note per image, not the picture). */
  get imageWidth(): number | undefined {
    return this.imageWidthCells;
  }

  override invalidate(): void {
    super.invalidate();
    this.item.invalidate();
    this.lastCall?.invalidate();
    this.lastResult?.invalidate();
  }

  private context(last: Component | undefined): RenderContext {
    return {
      args: this.args,
      toolCallId: this.toolCallId,
      invalidate: () => {
        this.invalidate();
        this.ui.requestRender();
      },
      lastComponent: last,
      state: this.state,
      cwd: this.cwd,
      executionStarted: this.started,
      argsComplete: this.argsComplete,
      isPartial: this.partial,
      expanded: this.display.expanded,
      showImages: this.showImages,
      isError: this.result?.isError ?? false,
    };
  }

  override render(width: number): string[] {
    const { renderCall, renderResult } = this.hooks;
    const own = this.item.render(width);
    if (!renderCall && !(renderResult && this.result)) return own;
    const t = currentTheme();
    // Tiller's block starts with a blank line and its header; a custom call renderer replaces the header.
    const lines: string[] = [own[0] ?? ""];
    if (renderCall) {
      this.lastCall = renderCall(this.args, t, this.context(this.lastCall));
      for (const l of this.lastCall.render(width)) lines.push(l);
    } else lines.push(own[1] ?? "");
    if (renderResult && this.result) {
      const options = { expanded: this.display.expanded, isPartial: this.partial };
      this.lastResult = renderResult(this.result, options, t, this.context(this.lastResult));
      for (const l of this.lastResult.render(width)) lines.push(l);
    } else for (const l of own.slice(2)) lines.push(l);
    return lines;
  }
}

/** A shell command the user ran (`!cmd`), its output streaming, then the exit state. */
export class BashExecutionComponent extends Container {
  private item: ToolItem;
  private display: ToolDisplay = { expanded: false };
  private output = "";
  /** `!!cmd`: run for the user only, kept out of the model's context. */
  readonly excluded: boolean;

  constructor(
    private command: string,
    private ui: RenderHost,
    excludeFromContext = false,
  ) {
    super();
    this.item = new ToolItem(`user-bash-${Date.now()}`, "bash", this.display);
    this.excluded = excludeFromContext;
    this.item.setArgs("", { command });
    this.item.start({ command });
    this.addChild(this.item);
  }

  /** Output expanded in full, or the last lines only. */
  setExpanded(expanded: boolean): void {
    this.display.expanded = expanded;
    this.item.invalidate();
  }

  override invalidate(): void {
    super.invalidate();
  }

  appendOutput(chunk: string): void {
    this.output += chunk;
    this.item.update(this.output);
    this.ui.requestRender();
  }

  setComplete(
    exitCode: number | undefined,
    cancelled: boolean,
    truncationResult?: TruncationResult,
    fullOutputPath?: string,
  ): void {
    const notes: string[] = [];
    if (cancelled) notes.push("(cancelled)");
    else if (exitCode !== undefined && exitCode !== 0) notes.push(`(exit ${exitCode})`);
    if (truncationResult?.truncated) {
      notes.push(
        `(output truncated to ${truncationResult.outputLines} of ${truncationResult.totalLines} lines` +
          `${fullOutputPath ? `; full output: ${fullOutputPath}` : ""})`,
      );
    }
    const shown = truncationResult?.truncated ? truncationResult.content : this.output;
    const text = [shown.replace(/\n$/, ""), ...notes].filter(Boolean).join("\n");
    this.item.end(text, cancelled || (exitCode !== undefined && exitCode !== 0));
    this.ui.requestRender();
  }

  /** The raw output so far (what a bashExecution message stores). */
  getOutput(): string {
    return this.output;
  }

  getCommand(): string {
    return this.command;
  }
}
