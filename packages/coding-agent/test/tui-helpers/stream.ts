/** Drives transcript items through the real ChatView and LiveRenderer onto a virtual terminal. */
import type { Component } from "@mariozechner/pi-tui";
import { AssistantItem } from "../../src/cli/tui/chat-items.js";
import { ChatView } from "../../src/cli/tui/chat-view.js";
import { LiveRenderer } from "../../src/cli/tui/live-renderer.js";
import { VirtualTerminal } from "./virtual-terminal.js";

/** A one-line panel standing in for the editor and status lines. */
export class PanelLine implements Component {
  constructor(public text = "> editor") {}
  invalidate(): void {}
  render(): string[] {
    return [this.text];
  }
}

export interface Harness {
  vt: VirtualTerminal;
  view: ChatView;
  renderer: LiveRenderer;
  /** Waits for the scheduled frame and for the emulator to parse it. */
  frame(): Promise<void>;
  /** Streams `text` into a new assistant item in `chunk`-sized deltas, one frame per delta; returns the item. */
  stream(text: string, chunk: number, onDelta?: (sofar: string) => Promise<void> | void): Promise<AssistantItem>;
  stop(): void;
}

export function harness(columns: number, rows: number): Harness {
  const vt = new VirtualTerminal(columns, rows);
  let renderer!: LiveRenderer;
  const view = new ChatView((lines) => renderer.commit(lines));
  renderer = new LiveRenderer(vt, view);
  view.setPanel([new PanelLine()]);
  renderer.start(() => {});
  const frame = async () => {
    renderer.requestRender();
    await renderer.idle();
    await vt.flush();
  };
  return {
    vt,
    view,
    renderer,
    frame,
    async stream(text, chunk, onDelta) {
      const item = new AssistantItem();
      view.add(item);
      for (let i = chunk; i < text.length + chunk; i += chunk) {
        const sofar = text.slice(0, i);
        item.update({ content: [{ type: "text", text: sofar }] });
        await frame();
        await onDelta?.(sofar);
      }
      item.end({ content: [{ type: "text", text }], stopReason: "stop" });
      await frame();
      return item;
    },
    stop: () => renderer.stop(),
  };
}
