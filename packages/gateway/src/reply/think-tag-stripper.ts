/**
 * Removes reasoning tags from streamed assistant text: `<think>`, `<thinking>`, `<thought>`, `<antthinking>` blocks
 * are routed to `reasoning`; `<final>` tags are removed, and when `enforceFinalTag` is set only text inside `<final>`
 * is kept. Tags may be split across deltas (a partial tag is held until it resolves) and are ignored inside markdown
 * code. Work is linear in the text: each character is looked at once, plus a tag buffer of at most 40 characters.
 */
import { CodeSpanTracker } from "./code-span-tracker.js";

export interface ThinkTagStripperOptions {
  /** Keep only `<final>` content (for providers that reason in plain text tags). */
  enforceFinalTag?: boolean;
}

/** What one delta contributed: visible text and reasoning text. */
export interface StrippedDelta {
  text: string;
  reasoning: string;
}

const THINK_NAMES = ["think", "thinking", "thought", "antthinking"];
const TAG_NAMES = [...THINK_NAMES, "final"];
const MAX_TAG_CHARS = 40;
const FULL_TAG = /^<\s*(\/?)\s*([a-z]+)\s*>$/i;
const PARTIAL_TAG = /^<\s*(\/?)\s*([a-z]*)(\s*)$/i;

/** Could `pending` still grow into a known tag? */
function couldBeTag(pending: string): boolean {
  if (pending.length > MAX_TAG_CHARS) return false;
  const m = PARTIAL_TAG.exec(pending);
  if (!m) return false;
  const name = (m[2] as string).toLowerCase();
  const trailingSpace = (m[3] as string).length > 0;
  if (trailingSpace) return name.length > 0 && TAG_NAMES.includes(name);
  return TAG_NAMES.some((n) => n.startsWith(name));
}

// Module level, not inside take(): a closure made per delta costs an allocation (and, under tsx/esbuild's
// keepNames, an Object.defineProperty) on the hottest path of a run.
function join(parts: string[]): string {
  return parts.length === 1 ? (parts[0] as string) : parts.join("");
}

export class ThinkTagStripper {
  private readonly enforceFinal: boolean;
  private inThink = false;
  private inFinal = false;
  private pending = "";
  private readonly code = new CodeSpanTracker();
  /**
   * What the current delta contributed, a character or a released tag at a time. Kept as pieces and joined once
   * per delta: `+=` per character would make every delta a rope of one node per character past the 13th, and the
   * reply text built from them would keep those nodes for the whole run.
   */
  private text: string[] = [];
  private reasoning: string[] = [];

  constructor(options: ThinkTagStripperOptions = {}) {
    this.enforceFinal = options.enforceFinalTag === true;
  }

  /** True once a `<final>` tag has opened (useful to know whether enforced output can still appear). */
  sawFinal = false;

  push(delta: string): StrippedDelta {
    if (!this.pending && delta.indexOf("<") < 0 && delta.indexOf("`") < 0) {
      // Plain text (the usual delta): no tag can start and, past its first character, the code state cannot
      // change, so it goes out whole. The same result as feeding it character by character, without the work.
      if (delta && !this.inThink) this.code.feed(delta[0] as string);
      this.emit(delta);
      return this.take();
    }
    for (let i = 0; i < delta.length; i++) this.feed(delta[i] as string);
    return this.take();
  }

  /** Ends the stream: a held partial tag is released as literal text. */
  flush(): StrippedDelta {
    if (this.pending) {
      this.emit(this.pending);
      this.pending = "";
    }
    return this.take();
  }

  reset(): void {
    this.inThink = false;
    this.inFinal = false;
    this.pending = "";
    this.code.reset();
    this.text = [];
    this.reasoning = [];
    this.sawFinal = false;
  }

  private take(): StrippedDelta {
    const out = { text: join(this.text), reasoning: join(this.reasoning) };
    this.text.length = 0;
    this.reasoning.length = 0;
    return out;
  }

  private emit(s: string): void {
    if (this.inThink) this.reasoning.push(s);
    else if (!this.enforceFinal || this.inFinal) this.text.push(s);
  }

  private feed(ch: string): void {
    if (this.pending) {
      const next = this.pending + ch;
      const full = ch === ">" ? FULL_TAG.exec(next) : null;
      if (full && TAG_NAMES.includes((full[2] as string).toLowerCase())) {
        this.pending = "";
        this.applyTag(full[1] === "/", (full[2] as string).toLowerCase());
        return;
      }
      if (ch !== ">" && couldBeTag(next)) {
        this.pending = next;
        return;
      }
      // Not a tag: release what was held and look at this character afresh (it may start a new tag).
      const held = this.pending;
      this.pending = "";
      // The leading "<" was already fed to the code tracker when the tag started.
      if (!this.inThink) for (const c of held.slice(1)) this.code.feed(c);
      this.emit(held);
    }
    const inCode = this.inThink ? false : this.code.feed(ch);
    if (ch === "<" && !inCode) {
      this.pending = "<";
      return;
    }
    this.emit(ch);
  }

  private applyTag(closing: boolean, name: string): void {
    if (THINK_NAMES.includes(name)) {
      this.inThink = !closing;
      return;
    }
    // <final>
    if (this.inThink) return;
    this.inFinal = !closing;
    if (!closing) this.sawFinal = true;
  }
}
