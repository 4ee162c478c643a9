/**
 * Incremental measure of `serializeContext(context)` (scripted-stream.ts) for the faux provider's usage estimates. A conversation
 * grows by appending, and the agent loop hands the provider the same, longer, messages array every turn; a
 * meter remembers the array it measured and how far, so the next call renders only the messages added since:
 * O(new messages + tools) per call instead of O(transcript), which would make every turn of a long run
 * slower than the one before. Any other context (another array, a shorter one, a replaced last message,
 * another system prompt) is measured from scratch. Messages already measured are assumed not to be edited in
 * place (the agent loop never does).
 */
import type { Context, Message } from "../types.js";
import { pushMessageParts, pushToolParts } from "./scripted-stream.js";

export interface ContextMeasure {
  /** `serializeContext(context).length`. */
  length: number;
  /**
   * Length of the prefix this rendering shares with the one the meter measured before (what a prompt cache
   * would reuse); 0 on the first call. Only computed when asked for.
   */
  sharedPrefix: number;
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function charCount(parts: readonly string[]): number {
  let n = 0;
  for (const p of parts) n += p.length;
  return n;
}

/** Length of `parts.join("\n")`. */
function joinedLength(chars: number, count: number): number {
  return count > 0 ? chars + count - 1 : 0;
}

export class ContextMeter {
  #measured = false;
  /** The caller's array last measured, and our own record of the messages in it then (to rebuild the text). */
  #messages: readonly Message[] = [];
  #seen: Message[] = [];
  #count = 0;
  #last: Message | undefined;
  #systemPrompt = "";
  /** Characters and count of the parts before the tools: the system prompt and the measured messages. */
  #headChars = 0;
  #headParts = 0;
  /** The tools' parts joined, and how many there were. */
  #toolsText = "";
  #toolParts = 0;

  /** Measures `context`; `withPrefix` also compares it with the previous one (`sharedPrefix`). */
  measure(context: Context, withPrefix: boolean): ContextMeasure {
    const messages = context.messages;
    const systemPrompt = context.systemPrompt || "";
    const appendOnly =
      this.#measured &&
      messages === this.#messages &&
      messages.length >= this.#count &&
      (this.#count === 0 || messages[this.#count - 1] === this.#last) &&
      systemPrompt === this.#systemPrompt;
    if (!appendOnly) return this.#fromScratch(context, withPrefix);

    const added: string[] = [];
    for (let i = this.#count; i < messages.length; i++) pushMessageParts(messages[i] as Message, added);
    const tools: string[] = [];
    pushToolParts(context.tools, tools);
    let sharedPrefix = 0;
    if (withPrefix) {
      // Before: head [+ "\n" + tools]; now: head [+ "\n" + added and tools]. The head is shared.
      const rest = added.length + tools.length > 0 ? added.concat(tools).join("\n") : undefined;
      const before = this.#toolParts > 0 ? this.#toolsText : undefined;
      if (this.#headParts > 0) {
        sharedPrefix =
          joinedLength(this.#headChars, this.#headParts) +
          commonPrefixLength(before === undefined ? "" : `\n${before}`, rest === undefined ? "" : `\n${rest}`);
      } else {
        sharedPrefix = commonPrefixLength(before ?? "", rest ?? "");
      }
    }
    this.#headChars += charCount(added);
    this.#headParts += added.length;
    for (let i = this.#count; i < messages.length; i++) this.#seen.push(messages[i] as Message);
    this.#remember(messages, tools);
    return {
      length: joinedLength(this.#headChars + charCount(tools), this.#headParts + tools.length),
      sharedPrefix,
    };
  }

  #fromScratch(context: Context, withPrefix: boolean): ContextMeasure {
    const head: string[] = [];
    if (context.systemPrompt) head.push(context.systemPrompt);
    for (const message of context.messages) pushMessageParts(message, head);
    const tools: string[] = [];
    pushToolParts(context.tools, tools);
    // The same text as serializeContext(context), from the same parts.
    const length = joinedLength(charCount(head) + charCount(tools), head.length + tools.length);
    const sharedPrefix =
      withPrefix && this.#measured ? commonPrefixLength(this.#previousText(), head.concat(tools).join("\n")) : 0;
    this.#systemPrompt = context.systemPrompt || "";
    this.#headChars = charCount(head);
    this.#headParts = head.length;
    this.#seen = context.messages.slice();
    this.#remember(context.messages, tools);
    return { length, sharedPrefix };
  }

  /** The rendering measured last, rebuilt from what was remembered of it. */
  #previousText(): string {
    const parts: string[] = [];
    if (this.#systemPrompt) parts.push(this.#systemPrompt);
    for (const message of this.#seen) pushMessageParts(message, parts);
    if (this.#toolParts > 0) parts.push(this.#toolsText);
    return parts.join("\n");
  }

  #remember(messages: readonly Message[], tools: string[]): void {
    this.#measured = true;
    this.#messages = messages;
    this.#count = messages.length;
    this.#last = messages[messages.length - 1];
    this.#toolsText = tools.join("\n");
    this.#toolParts = tools.length;
  }
}
