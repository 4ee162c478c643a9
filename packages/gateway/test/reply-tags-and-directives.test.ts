import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseReplyDirectives, ReplyDirectiveParser } from "../src/reply/reply-directives.js";
import { ThinkTagStripper } from "../src/reply/think-tag-stripper.js";

/** Feeds `text` split at the given cut points; returns joined visible text and reasoning. */
function strip(text: string, cuts: number[], enforceFinalTag = false) {
  const s = new ThinkTagStripper({ enforceFinalTag });
  let out = "";
  let reasoning = "";
  let prev = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < text.length).sort((a, b) => a - b), text.length]) {
    const r = s.push(text.slice(prev, cut));
    out += r.text;
    reasoning += r.reasoning;
    prev = cut;
  }
  const f = s.flush();
  return { text: out + f.text, reasoning: reasoning + f.reasoning };
}

function everySplit(text: string, check: (r: { text: string; reasoning: string }) => void) {
  for (let i = 0; i <= text.length; i++) check(strip(text, [i]));
  check(
    strip(
      text,
      Array.from({ length: text.length }, (_, i) => i),
    ),
  );
}

describe("think tag stripper", () => {
  it("removes <think> blocks wherever the deltas split the tags, and routes them to reasoning", () => {
    everySplit("Hi <think>secret plan</think>there", (r) => {
      expect(r.text).toBe("Hi there");
      expect(r.reasoning).toBe("secret plan");
    });
  });

  it("handles <thinking>, <thought>, <antthinking>, spaces and case in the tags", () => {
    everySplit("<Thinking>a</ thinking >B< thought >c</thought>D<antthinking>e</antthinking>", (r) => {
      expect(r.text).toBe("BD");
      expect(r.reasoning).toBe("ace");
    });
  });

  it("leaves look-alikes and tags inside code alone", () => {
    everySplit("a < b and <thinker> and `<think>` ok", (r) => {
      expect(r.text).toBe("a < b and <thinker> and `<think>` ok");
      expect(r.reasoning).toBe("");
    });
    const fenced = "```\n<think>not a tag</think>\n```\nafter<think>x</think>";
    expect(strip(fenced, [5, 9]).text).toBe("```\n<think>not a tag</think>\n```\nafter");
  });

  it("a partial tag at the end of the stream is released as text", () => {
    expect(strip("value <thin", [7])).toEqual({ text: "value <thin", reasoning: "" });
  });

  it("strips stray <final> tags when not enforced", () => {
    everySplit("<final>Answer</final> done", (r) => expect(r.text).toBe("Answer done"));
  });

  it("with enforceFinalTag only <final> content is kept", () => {
    const text = "planning text <think>deep</think><final>The answer</final> trailing";
    for (let i = 0; i <= text.length; i++) {
      const r = strip(text, [i, i + 3], true);
      expect(r.text).toBe("The answer");
      expect(r.reasoning).toBe("deep");
    }
    expect(strip("no final tag at all", [], true).text).toBe("");
  });

  it("property: text without '<' passes through unchanged for any split", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("<")),
        fc.array(fc.nat(50)),
        (text, cuts) => {
          expect(strip(text, cuts).text).toBe(text);
        },
      ),
    );
  });

  it("property: any split of text with tags, code spans and plain runs gives what one character at a time gives", () => {
    const piece = fc.constantFrom(
      "<think>",
      "</think>",
      "<final>",
      "</final>",
      "`",
      "```",
      "<",
      ">",
      "a b",
      "plain text ",
      "\n",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(200)), fc.boolean(), (pieces, cuts, enforce) => {
        const text = pieces.join("");
        const perChar = Array.from({ length: text.length }, (_, i) => i);
        expect(strip(text, cuts, enforce)).toEqual(strip(text, perChar, enforce));
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it("is linear: 1 MB in one-character deltas", () => {
    const s = new ThinkTagStripper();
    const unit = "word <b> <think>x</think> `code <think>` ";
    const text = unit.repeat(Math.ceil(1_000_000 / unit.length));
    const t0 = performance.now();
    let n = 0;
    for (let i = 0; i < text.length; i++) n += s.push(text[i] as string).text.length;
    expect(n).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(3000);
  });
});

describe("reply directives", () => {
  it("parses media, voice and reply directives out of the text", () => {
    const r = parseReplyDirectives("[[reply:msg-42]] Here is the chart [[media:https://x.test/a.png]]\n[[voice]]");
    expect(r.replyToId).toBe("msg-42");
    expect(r.mediaUrls).toEqual(["https://x.test/a.png"]);
    expect(r.audioAsVoice).toBe(true);
    expect(r.text.trim()).toBe("Here is the chart");
  });

  it("accepts reply_to, reply_to_current, audio_as_voice and whitespace inside the brackets", () => {
    const r = parseReplyDirectives("[[ reply_to : 7 ]][[reply_to_current]][[audio_as_voice]]ok");
    expect(r).toMatchObject({ replyToId: "7", replyToCurrent: true, audioAsVoice: true, text: "ok" });
  });

  it("directives split across deltas at every position are still parsed", () => {
    const text = "A [[media:/tmp/x.png]] B [[reply:9]] C";
    for (let i = 0; i <= text.length; i++) {
      for (const j of [i + 1, i + 5]) {
        const p = new ReplyDirectiveParser();
        const out = p.push(text.slice(0, i)) + p.push(text.slice(i, j)) + p.push(text.slice(j)) + p.flush();
        expect(out).toBe("A  B  C");
        expect(p.directives).toMatchObject({ mediaUrls: ["/tmp/x.png"], replyToId: "9" });
      }
    }
  });

  it("property: any split gives the text and directives that one character at a time gives", () => {
    const piece = fc.constantFrom("[[media:/x.png]]", "[[reply:7]]", "[[voice]]", "[", "]", "`", "```", "plain ", "\n");
    const run = (text: string, cuts: number[]) => {
      const p = new ReplyDirectiveParser();
      let out = "";
      let prev = 0;
      for (const cut of [...cuts.filter((c) => c > 0 && c < text.length).sort((a, b) => a - b), text.length]) {
        out += p.push(text.slice(prev, cut));
        prev = cut;
      }
      return { out: out + p.flush(), directives: p.directives };
    };
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.array(fc.nat(200)), (pieces, cuts) => {
        const text = pieces.join("");
        expect(run(text, cuts)).toEqual(
          run(
            text,
            Array.from({ length: text.length }, (_, i) => i),
          ),
        );
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it("unknown or malformed directives, single brackets and directives inside code stay as text", () => {
    const text = "[[unknown:1]] [link] [[media:]] `[[voice]]` [[voice:x]] [[reply:\nx]]";
    const r = parseReplyDirectives(text);
    expect(r.text).toBe(text);
    expect(r).toMatchObject({ mediaUrls: [], audioAsVoice: false, replyToCurrent: false });
    expect(r.replyToId).toBeUndefined();
  });

  it("an unterminated directive at the end of the stream is released as text", () => {
    const p = new ReplyDirectiveParser();
    expect(p.push("see [[media:http://a")).toBe("see ");
    expect(p.flush()).toBe("[[media:http://a");
  });
});
