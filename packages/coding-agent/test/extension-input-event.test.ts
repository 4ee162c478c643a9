/**
 * pi's `input` event: handlers see the text and images as transformed by the handlers before them, with the
 * input's source; the first `handled` ends it; the result says whether anything changed — compared with pi's
 * runner given the same handlers.
 */
import type { ImageContent } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import type { InputEvent, InputEventResult } from "../src/index.js";
import { bothRunners } from "./extension-helpers.js";

const image: ImageContent = { type: "image", data: "AAAA", mimeType: "image/png" };

describe("input event", () => {
  it("chains transforms (text and images) and reports the source, as pi's runner", async () => {
    const seen: string[] = [];
    const handlers: Array<(e: InputEvent) => InputEventResult | undefined> = [
      (e) => {
        seen.push(`${e.source}:${e.text}:${e.images?.length ?? 0}`);
        return { action: "transform", text: `${e.text} +one`, images: [image] };
      },
      (e) => {
        seen.push(`${e.source}:${e.text}:${e.images?.length ?? 0}`);
        return { action: "transform", text: `${e.text} +two` };
      },
    ];
    const { ours, theirs } = await bothRunners("input", handlers);
    const a = await ours.emitInput("hello", undefined, "rpc");
    const mine = seen.splice(0);
    const b = await theirs.emitInput("hello", undefined, "rpc");
    expect(a).toEqual(b);
    expect(a).toEqual({ action: "transform", text: "hello +one +two", images: [image] });
    expect(mine).toEqual(seen);
    expect(mine).toEqual(["rpc:hello:0", "rpc:hello +one:1"]);
  });

  it("stops at the first handled; nothing changed is continue", async () => {
    let later = 0;
    const { ours, theirs } = await bothRunners("input", [
      () => ({ action: "handled" }),
      () => {
        later++;
        return undefined;
      },
    ]);
    expect(await ours.emitInput("x", undefined, "interactive")).toEqual({ action: "handled" });
    expect(await theirs.emitInput("x", undefined, "interactive")).toEqual({ action: "handled" });
    expect(later).toBe(0);
    const quiet = await bothRunners("input", [() => undefined]);
    expect(await quiet.ours.emitInput("x", undefined, "extension")).toEqual({ action: "continue" });
    expect(await quiet.theirs.emitInput("x", undefined, "extension")).toEqual({ action: "continue" });
    expect(await quiet.ours.input("x")).toBe("x");
  });
});
