/**
 * Reply directives written by the model and parsed out of the visible text into payload fields:
 * `[[media:<url-or-path>]]` (attachment), `[[voice]]` / `[[audio_as_voice]]` (send audio as a voice note),
 * `[[reply:<id>]]` / `[[reply_to:<id>]]` (reply to a message), `[[reply_to_current]]` (reply to the inbound message).
 * Directives may be split across deltas; they are ignored inside markdown code. Unknown `[[...]]` text stays as is.
 * Linear: each character is looked at once; a pending `[[` is held for at most 2048 characters.
 */
import { CodeSpanTracker } from "./code-span-tracker.js";

/** Fields parsed out of a reply's text. */
export interface ReplyDirectives {
  mediaUrls: string[];
  audioAsVoice: boolean;
  replyToId?: string;
  replyToCurrent: boolean;
}

const MAX_DIRECTIVE_CHARS = 2048;
const DIRECTIVE = /^\[\[\s*([a-z_]+)\s*(?::\s*([^\]\n]*?))?\s*\]\]$/i;

export class ReplyDirectiveParser {
  private pending = "";
  private readonly code = new CodeSpanTracker();
  /** The current delta's visible text, as pieces joined once per delta (see ThinkTagStripper's `text`). */
  private out: string[] = [];
  private state: ReplyDirectives = { mediaUrls: [], audioAsVoice: false, replyToCurrent: false };

  /** Directives seen so far. */
  get directives(): ReplyDirectives {
    return { ...this.state, mediaUrls: [...this.state.mediaUrls] };
  }

  /** Feeds a delta; returns the text with complete directives removed (partial ones are held). */
  push(delta: string): string {
    if (!this.pending && delta.indexOf("[") < 0 && delta.indexOf("`") < 0) {
      // Plain text: no directive can start and the code state can only change at its first character.
      if (delta) this.code.feed(delta[0] as string);
      return this.out.length === 0 ? delta : this.out.join("") + delta;
    }
    for (let i = 0; i < delta.length; i++) this.feed(delta[i] as string);
    const out = this.out.join("");
    this.out.length = 0;
    return out;
  }

  /** Ends the stream: a held partial directive is released as literal text. */
  flush(): string {
    const out = this.out.join("") + this.pending;
    this.out.length = 0;
    this.pending = "";
    return out;
  }

  reset(): void {
    this.pending = "";
    this.out.length = 0;
    this.code.reset();
    this.state = { mediaUrls: [], audioAsVoice: false, replyToCurrent: false };
  }

  private feed(ch: string): void {
    if (this.pending) {
      if (this.pending === "[") {
        if (ch === "[") {
          this.pending = "[[";
          return;
        }
        this.release(this.pending);
      } else {
        const next = this.pending + ch;
        if (ch === "]" && next.endsWith("]]")) {
          this.pending = "";
          if (!this.apply(next)) this.release(next);
          return;
        }
        if (ch !== "\n" && next.length <= MAX_DIRECTIVE_CHARS) {
          this.pending = next;
          return;
        }
        this.release(this.pending);
      }
    }
    const inCode = this.code.feed(ch);
    if (ch === "[" && !inCode) {
      this.pending = "[";
      return;
    }
    this.out.push(ch);
  }

  /** Emits held text as literal; its first "[" was already fed to the code tracker. */
  private release(held: string): void {
    this.pending = "";
    for (let i = 1; i < held.length; i++) this.code.feed(held[i] as string);
    this.out.push(held);
  }

  private apply(tag: string): boolean {
    const m = DIRECTIVE.exec(tag);
    if (!m) return false;
    const name = (m[1] as string).toLowerCase();
    const arg = m[2]?.trim();
    switch (name) {
      case "media":
        if (!arg) return false;
        this.state.mediaUrls.push(arg);
        return true;
      case "voice":
      case "audio_as_voice":
        if (arg !== undefined) return false;
        this.state.audioAsVoice = true;
        return true;
      case "reply":
      case "reply_to":
        if (!arg) return false;
        this.state.replyToId = arg;
        return true;
      case "reply_to_current":
        if (arg !== undefined) return false;
        this.state.replyToCurrent = true;
        return true;
      default:
        return false;
    }
  }
}

/** One-shot form for complete text. */
export function parseReplyDirectives(text: string): ReplyDirectives & { text: string } {
  const parser = new ReplyDirectiveParser();
  const cleaned = parser.push(text) + parser.flush();
  return { ...parser.directives, text: cleaned };
}
