/**
 * Extension shortcuts and message renderers on the runner (pi's `registerShortcut`, `registerMessageRenderer`,
 * `getShortcuts`, `getShortcutDiagnostics`, `getMessageRenderer`): which keys an extension gets next to the
 * built-in ones, agreeing with pi's runner on the same registrations, and the renderer a custom type draws with.
 */
import * as pi from "@mariozechner/pi-coding-agent";
import { type KeyId, Text } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import { customMessageItem } from "../src/cli/tui/custom-message-item.js";
import { replayItems } from "../src/cli/tui/replay.js";
import { type ExtensionContext, type ExtensionShortcut, KeybindingsManager, loadExtensions } from "../src/index.js";

type Reg = Array<[key: KeyId, description: string]>;

/** Tiller's runner with one extension per list of shortcuts (ext0, ext1, …), each shortcut recording its call. */
async function ours(exts: Reg[], calls: string[] = []) {
  return loadExtensions({
    cwd: process.cwd(),
    noDiscovery: true,
    factories: exts.map((list, i) => ({
      name: `ext${i}`,
      factory: (api) => {
        for (const [key, description] of list)
          api.registerShortcut(key, { description, handler: (ctx) => void calls.push(`${key}:${ctx.cwd}`) });
      },
    })),
  });
}

/** pi's runner with the same registrations. */
function theirs(exts: Reg[]): pi.ExtensionRunner {
  const extensions = exts.map((list, i) => ({
    path: `ext${i}`,
    resolvedPath: `ext${i}`,
    sourceInfo: pi.createSyntheticSourceInfo(`ext${i}`, { source: "test" }),
    handlers: new Map(),
    tools: new Map(),
    messageRenderers: new Map(),
    commands: new Map(),
    flags: new Map(),
    shortcuts: new Map(
      list.map(([key, description]) => [
        key,
        { shortcut: key, description, handler: () => {}, extensionPath: `ext${i}` },
      ]),
    ),
  }));
  const sm = pi.SessionManager.inMemory(process.cwd());
  const registry = pi.ModelRegistry.inMemory(pi.AuthStorage.inMemory());
  return new pi.ExtensionRunner(extensions as never, pi.createExtensionRuntime(), process.cwd(), sm, registry);
}

const summary = (m: Map<string, Pick<ExtensionShortcut, "extensionPath" | "description">>) =>
  [...m].map(([k, s]) => `${k} ${s.extensionPath} ${s.description}`).sort();

describe("extension shortcuts", () => {
  const regs: Reg[] = [
    [
      ["ctrl+g", "takes Ctrl+G"], // app.editor.external: reserved
      ["ctrl+n", "takes Ctrl+N"], // app.session.toggleNamedFilter: may be taken over
      ["ctrl+shift+k", "first k"],
      ["f5", "refresh"],
    ],
    // Upper case is not a KeyId to TypeScript; the runner still matches it, lower-cased (pi: the same).
    [["Ctrl+Shift+K" as KeyId, "second k"]],
  ];

  it("skips reserved built-in keys, takes over the others, lets the later extension win, as pi's runner does", async () => {
    const keys = new KeybindingsManager().getEffectiveConfig();
    const runner = await ours(regs);
    const got = runner.getShortcuts(keys);
    expect(summary(got)).toEqual(["ctrl+n ext0 takes Ctrl+N", "ctrl+shift+k ext1 second k", "f5 ext0 refresh"]);

    const piRunner = theirs(regs);
    const warn = console.warn;
    console.warn = () => {}; // pi's runner prints its diagnostics without a UI
    try {
      expect(summary(got)).toEqual(summary(piRunner.getShortcuts(keys as never)));
    } finally {
      console.warn = warn;
    }

    const diags = runner.getShortcutDiagnostics();
    expect(diags.map((d) => [d.type, d.path])).toEqual(piRunner.getShortcutDiagnostics().map((d) => [d.type, d.path]));
    expect(diags.map((d) => d.message)).toEqual([
      "shortcut ctrl+g of ext0 is the built-in app.editor.external: skipped",
      "shortcut ctrl+n of ext0 replaces the built-in app.session.toggleNamedFilter (that key now runs the extension's)",
      "shortcut Ctrl+Shift+K is registered by ext0 and ext1; ext1's is used",
    ]);
  });

  it("follows the user's keybindings: a key moved off a reserved action is free, one moved onto it is not", async () => {
    const keys = new KeybindingsManager({ "app.editor.external": "f5" }).getEffectiveConfig();
    const runner = await ours(regs);
    const got = runner.getShortcuts(keys);
    expect([...got.keys()].sort()).toEqual(["ctrl+g", "ctrl+n", "ctrl+shift+k"]);
    expect(runner.getShortcutDiagnostics().map((d) => d.message)).toContain(
      "shortcut f5 of ext0 is the built-in app.editor.external: skipped",
    );
  });

  it("runs the handler with the extension context", async () => {
    const calls: string[] = [];
    const runner = await ours(regs, calls);
    const shortcut = runner.getShortcuts(new KeybindingsManager().getEffectiveConfig()).get("f5")!;
    await shortcut.handler(runner.createContext() as ExtensionContext);
    expect(calls).toEqual([`f5:${process.cwd()}`]);
  });

  it("rejects a shortcut without a handler at registration (the extension fails to load, reported)", async () => {
    const runner = await loadExtensions({
      cwd: process.cwd(),
      noDiscovery: true,
      factories: [{ name: "bad", factory: (api) => api.registerShortcut("f6", {} as never) }],
    });
    expect(runner.extensions).toHaveLength(0);
    expect(runner.loadErrors[0]?.error).toBe('shortcut "f6" has no handler');
  });
});

describe("extension message renderers", () => {
  it("returns the later extension's renderer of a custom type, and draws the message with it", async () => {
    const runner = await loadExtensions({
      cwd: process.cwd(),
      noDiscovery: true,
      factories: [
        { name: "a", factory: (api) => api.registerMessageRenderer("note", () => new Text("from a", 0, 0)) },
        {
          name: "b",
          factory: (api) =>
            api.registerMessageRenderer<{ n: number }>(
              "note",
              (m, opts, theme) => new Text(theme.bold(`note #${m.details?.n} expanded=${opts.expanded}`), 0, 0),
            ),
        },
      ],
    });
    expect(runner.getMessageRenderer("other")).toBeUndefined();
    const message = {
      role: "custom",
      customType: "note",
      content: "raw",
      display: true,
      details: { n: 7 },
      timestamp: 1,
    };
    const drawn = customMessageItem(message, (t) => runner.getMessageRenderer(t))!
      .render(60)
      .join("\n");
    expect(drawn).toContain("note #7 expanded=false");
    expect(drawn).not.toContain("[note]");
    // Without a renderer: the label and the content; hidden messages get no item.
    const plain = customMessageItem({ ...message, customType: "other" }, (t) => runner.getMessageRenderer(t))!;
    expect(plain.render(60).join("\n")).toContain("[other]");
    expect(customMessageItem({ ...message, display: false }, (t) => runner.getMessageRenderer(t))).toBeUndefined();
  });

  it("draws stored custom messages with their renderer when the transcript is shown again (/resume, /tree)", () => {
    const stored = [
      { role: "user", content: "hi", timestamp: 1 },
      { role: "custom", customType: "note", content: "raw", display: true, details: { n: 1 }, timestamp: 2 },
      { role: "custom", customType: "note", content: "secret", display: false, details: { n: 2 }, timestamp: 3 },
    ];
    const items = replayItems(stored as never, 40, undefined, (t) =>
      t === "note" ? (m) => new Text(`note #${(m.details as { n: number }).n}`, 0, 0) : undefined,
    );
    const text = items.map((i) => i.render(60).join("\n")).join("\n");
    expect(text).toContain("note #1");
    expect(text).not.toContain("note #2");
    expect(text).not.toContain("raw");
  });
});
