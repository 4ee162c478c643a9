/**
 * pi's `input` event: handlers see the text and images as transformed by the handlers before them, with the
 * input's source; the first `handled` ends it; the result says whether anything changed — compared with pi's
 * runner given the same handlers.
 */
import * as pi from "@mariozechner/pi-coding-agent";
import type { ImageContent } from "@tiller/ai";
import { describe, expect, it } from "vitest";
import { type InputEvent, type InputEventResult, loadExtensions } from "../src/index.js";

const image: ImageContent = { type: "image", data: "AAAA", mimeType: "image/png" };

type Handler = (e: InputEvent) => InputEventResult | undefined;

/** Tiller's runner and pi's, each with one extension per handler (in order). */
async function runners(handlers: Handler[]) {
  const ours = await loadExtensions({
    cwd: process.cwd(),
    noDiscovery: true,
    factories: handlers.map((h, i) => ({ name: `ext${i}`, factory: (api) => api.on("input", (e) => h(e)) })),
  });
  const runtime = pi.createExtensionRuntime();
  const extensions = handlers.map((h, i) => ({
    path: `ext${i}`,
    resolvedPath: `ext${i}`,
    sourceInfo: pi.createSyntheticSourceInfo(`ext${i}`, { source: "test" }),
    handlers: new Map([["input", [async (e: unknown) => h(e as InputEvent)]]]),
    tools: new Map(),
    messageRenderers: new Map(),
    commands: new Map(),
    flags: new Map(),
    shortcuts: new Map(),
  }));
  const sm = pi.SessionManager.inMemory(process.cwd());
  const registry = pi.ModelRegistry.inMemory(pi.AuthStorage.inMemory());
  const theirs = new pi.ExtensionRunner(extensions as never, runtime, process.cwd(), sm, registry);
  return { ours, theirs };
}

describe("input event", () => {
  it("chains transforms (text and images) and reports the source, as pi's runner", async () => {
    const seen: string[] = [];
    const handlers: Handler[] = [
      (e) => {
        seen.push(`${e.source}:${e.text}:${e.images?.length ?? 0}`);
        return { action: "transform", text: `${e.text} +one`, images: [image] };
      },
      (e) => {
        seen.push(`${e.source}:${e.text}:${e.images?.length ?? 0}`);
        return { action: "transform", text: `${e.text} +two` };
      },
    ];
    const { ours, theirs } = await runners(handlers);
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
    const { ours, theirs } = await runners([
      () => ({ action: "handled" }),
      () => {
        later++;
        return undefined;
      },
    ]);
    expect(await ours.emitInput("x", undefined, "interactive")).toEqual({ action: "handled" });
    expect(await theirs.emitInput("x", undefined, "interactive")).toEqual({ action: "handled" });
    expect(later).toBe(0);
    const quiet = await runners([() => undefined]);
    expect(await quiet.ours.emitInput("x", undefined, "extension")).toEqual({ action: "continue" });
    expect(await quiet.theirs.emitInput("x", undefined, "extension")).toEqual({ action: "continue" });
    expect(await quiet.ours.input("x")).toBe("x");
  });
});
