/**
 * Immutable state snapshots. A snapshot is built lazily (only when `agent.state` is read after a change), shares
 * frozen arrays with its siblings, and materialises the transcript only when `messages` is read — so a streamed
 * delta costs O(1) however long the transcript is.
 */
import type { Model } from "@tiller/ai";
import type { AgentMessage, AgentState, AgentTool, ThinkingLevel } from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
type AnyTool = AgentTool<any>;

/** What a snapshot's setters call: assignments update the agent, never the snapshot. */
export interface StateOwner {
  setSystemPrompt(prompt: string): void;
  setModel(model: Model): void;
  setThinkingLevel(level: ThinkingLevel): void;
  setTools(tools: AnyTool[]): void;
  replaceMessages(messages: AgentMessage[]): void;
}

export interface StateParts {
  systemPrompt: string;
  model: Model;
  thinkingLevel: ThinkingLevel;
  tools: readonly AnyTool[];
  /** Returns the transcript as it was when the snapshot was taken (frozen). */
  messages: () => readonly AgentMessage[];
  isStreaming: boolean;
  streamMessage: AgentMessage | undefined;
  pendingToolCalls: ReadonlySet<string>;
  error: string | undefined;
}

export function makeSnapshot(owner: StateOwner, parts: StateParts): AgentState {
  let messages: readonly AgentMessage[] | undefined;
  const snapshot: AgentState = {
    get systemPrompt() {
      return parts.systemPrompt;
    },
    set systemPrompt(value: string) {
      owner.setSystemPrompt(value);
    },
    get model() {
      return parts.model;
    },
    set model(value: Model) {
      owner.setModel(value);
    },
    get thinkingLevel() {
      return parts.thinkingLevel;
    },
    set thinkingLevel(value: ThinkingLevel) {
      owner.setThinkingLevel(value);
    },
    get tools() {
      return parts.tools as AnyTool[];
    },
    set tools(value: AnyTool[]) {
      owner.setTools(value);
    },
    get messages() {
      messages ??= parts.messages();
      return messages as AgentMessage[];
    },
    set messages(value: AgentMessage[]) {
      owner.replaceMessages(value);
    },
    isStreaming: parts.isStreaming,
    streamMessage: parts.streamMessage ?? null,
    streamingMessage: parts.streamMessage,
    pendingToolCalls: parts.pendingToolCalls,
    error: parts.error,
    errorMessage: parts.error,
  };
  return Object.freeze(snapshot);
}

/**
 * The agent's transcript: an append-only array (replaced wholesale, never edited in place), so a snapshot can
 * remember (array, length) and copy lazily; the frozen copy of the current version is cached and shared.
 */
export class Transcript {
  private items: AgentMessage[] = [];
  private view: readonly AgentMessage[] | undefined = Object.freeze([]);

  constructor(initial?: readonly AgentMessage[]) {
    if (initial) this.replace(initial);
  }

  /** The live array, for the loop to copy at the start of a run. */
  get current(): readonly AgentMessage[] {
    return this.items;
  }

  get length(): number {
    return this.items.length;
  }

  last(): AgentMessage | undefined {
    return this.items[this.items.length - 1];
  }

  append(message: AgentMessage): void {
    this.items.push(message);
    this.view = undefined;
  }

  replace(messages: readonly AgentMessage[]): void {
    this.items = messages.slice();
    this.view = undefined;
  }

  /** A function returning the transcript as it is now, frozen, computed only if called. */
  versionReader(): () => readonly AgentMessage[] {
    if (this.view) {
      const view = this.view;
      return () => view;
    }
    const items = this.items;
    const length = items.length;
    return () => {
      if (this.items === items && items.length === length) {
        this.view ??= Object.freeze(items.slice());
        return this.view;
      }
      return Object.freeze(items.slice(0, length));
    };
  }
}
