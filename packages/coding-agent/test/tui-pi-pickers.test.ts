/**
 * pi's pickers, footer, loader and login dialog on Tiller's terminal UI, with real sessions, a real model
 * registry and auth storage: what each lists, what its keys answer, and that it fits the width.
 */
import { type Component, visibleWidth } from "@mariozechner/pi-tui";
import { describe, expect, it } from "vitest";
import {
  AuthStorage,
  BorderedLoader,
  FooterComponent,
  initTheme,
  LoginDialogComponent,
  ModelRegistry,
  ModelSelectorComponent,
  OAuthSelectorComponent,
  SessionManager,
  SessionSelectorComponent,
  SettingsManager,
  Theme,
  ThemeSelectorComponent,
  TreeSelectorComponent,
} from "../src/index.js";
import type { SessionInfo } from "../src/session/types.js";

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "");
const host = { requestRender() {} };
const DOWN = "\x1b[B";
const ENTER = "\r";
const ESC = "\x1b";

function text(c: Component, width = 70): string {
  const out = c.render(width);
  for (const l of out) expect(visibleWidth(l)).toBeLessThanOrEqual(width);
  return out.map(strip).join("\n");
}

const user = (t: string) => ({ role: "user" as const, content: t, timestamp: 0 });
const reply = (t: string) => ({
  role: "assistant" as const,
  content: [{ type: "text" as const, text: t }],
  api: "openai-completions",
  provider: "p",
  model: "m",
  usage: {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: "stop" as const,
  timestamp: 0,
});

describe("model and auth pickers", () => {
  it("lists the catalog with configured providers first and answers with the Model object", async () => {
    const auth = AuthStorage.inMemory();
    auth.setRuntimeApiKey("anthropic", "sk-test");
    const registry = ModelRegistry.inMemory(auth);
    const chosen = await new Promise<{ provider: string; id: string } | "cancelled">((resolve) => {
      const s = new ModelSelectorComponent(
        host,
        undefined,
        SettingsManager.inMemory(),
        registry,
        [],
        resolve,
        () => resolve("cancelled"),
        "anthropic",
      );
      expect(s.getSearchInput().getValue()).toBe("anthropic");
      const shown = text(s);
      expect(shown).toContain("anthropic/");
      s.handleInput(ENTER);
    });
    expect(chosen).not.toBe("cancelled");
    expect((chosen as { provider: string }).provider).toBe("anthropic");
  });

  it("offers only the scoped models when there are, and Esc cancels", async () => {
    const registry = ModelRegistry.inMemory();
    const [a, b] = registry.getAll();
    const picked = await new Promise<string>((resolve) => {
      const s = new ModelSelectorComponent(
        host,
        a,
        SettingsManager.inMemory(),
        registry,
        [{ model: a! }, { model: b! }],
        (m) => resolve(`${m.provider}/${m.id}`),
        () => resolve("cancelled"),
      );
      expect(text(s)).toContain("2/2");
      s.handleInput(DOWN);
      s.handleInput(ENTER);
    });
    expect(picked).toBe(`${b!.provider}/${b!.id}`);
    const cancelled = await new Promise<string>((resolve) => {
      new ModelSelectorComponent(
        host,
        a,
        SettingsManager.inMemory(),
        registry,
        [],
        () => resolve("picked"),
        () => resolve("cancelled"),
      ).handleInput(ESC);
    });
    expect(cancelled).toBe("cancelled");
  });

  it("shows each provider's auth state from the storage", async () => {
    const auth = AuthStorage.inMemory({ openai: { type: "api_key", key: "sk-1" } });
    const providers = [
      { id: "openai", name: "OpenAI", authType: "api_key" as const },
      { id: "anthropic", name: "Anthropic", authType: "oauth" as const },
    ];
    const id = await new Promise<string>((resolve) => {
      const s = new OAuthSelectorComponent("logout", auth as never, providers, resolve, () => resolve("cancelled"));
      const shown = text(s, 100);
      expect(shown).toMatch(/OpenAI\s+API key · configured/);
      expect(shown).toMatch(/Anthropic\s+subscription login · not configured/);
      s.handleInput(ENTER);
    });
    expect(id).toBe("openai");
  });

  it("previews a theme as the cursor moves", async () => {
    const previews: string[] = [];
    const chosen = await new Promise<string>((resolve) => {
      const s = new ThemeSelectorComponent(
        "dark",
        resolve,
        () => resolve("cancelled"),
        (t) => previews.push(t),
      );
      s.handleInput(DOWN);
      s.handleInput(ENTER);
    });
    expect(previews).toEqual(["light"]);
    expect(chosen).toBe("light");
  });
});

describe("session and tree pickers", () => {
  it("loads this folder's sessions, switches to all folders on Tab, and answers with the path", async () => {
    const info = (path: string, firstMessage: string): SessionInfo =>
      ({ path, id: path, cwd: "/x", firstMessage, created: new Date(), modified: new Date(), sizeBytes: 10 }) as never;
    const calls: string[] = [];
    const renders: number[] = [];
    let s!: SessionSelectorComponent;
    const path = await new Promise<string>((resolve) => {
      s = new SessionSelectorComponent(
        async () => {
          calls.push("current");
          return [info("/s/here.jsonl", "here")];
        },
        async () => {
          calls.push("all");
          return [info("/s/here.jsonl", "here"), info("/t/there.jsonl", "elsewhere")];
        },
        resolve,
        () => resolve("cancelled"),
        () => resolve("exit"),
        () => {
          renders.push(1);
          if (calls.length === 1 && renders.length === 1) {
            expect(text(s)).toContain("here");
            s.handleInput("\t");
          } else if (calls.length === 2 && renders.length === 2) {
            expect(text(s)).toContain("elsewhere");
            s.handleInput(DOWN);
            s.handleInput(ENTER);
          }
        },
      );
    });
    expect(calls).toEqual(["current", "all"]);
    expect(path).toBe("/t/there.jsonl");
  });

  it("shows the session tree with the current branch and moves to another entry", async () => {
    const sm = SessionManager.inMemory();
    const u1 = sm.appendMessage(user("first question"));
    sm.appendMessage(reply("first answer"));
    sm.branch(u1);
    sm.appendMessage(reply("another answer"));
    const leaf = sm.getLeafId();
    const chosen = await new Promise<string>((resolve) => {
      const s = new TreeSelectorComponent(sm.getTree(), leaf, 30, resolve, () => resolve("cancelled"));
      const shown = text(s);
      expect(shown).toContain("› first question");
      expect(shown).toContain("‹ first answer");
      expect(shown).toMatch(/•\s*‹ another answer\s+\(here\)/);
      // The current leaf is selected first; Up goes to the other branch's answer.
      s.handleInput("\x1b[A");
      s.handleInput(ENTER);
    });
    expect(sm.getEntry(chosen)?.type).toBe("message");
    expect(chosen).not.toBe(leaf);
    const userOnly = new TreeSelectorComponent(
      sm.getTree(),
      leaf,
      30,
      () => {},
      () => {},
      undefined,
      undefined,
      "user-only",
    );
    expect(text(userOnly)).not.toContain("answer");
  });
});

describe("footer, loader, login", () => {
  it("shows the session's model and usage with the git branch and extension statuses", () => {
    initTheme("dark");
    const sm = SessionManager.inMemory();
    const session = {
      model: { provider: "anthropic", id: "claude-x", contextWindow: 1000 },
      thinkingLevel: "high",
      sessionFile: undefined,
      sessionId: "abcdef123456",
      getSessionStats: () => ({ tokens: { total: 1500 }, cost: 0.25 }),
      getContextUsage: () => ({ tokens: 800, contextWindow: 1000, percent: 80 }),
      sessionManager: sm,
    };
    const footer = new FooterComponent(session as never, {
      getGitBranch: () => "main",
      getExtensionStatuses: () => new Map([["ext", "indexing 3 files"]]),
      getAvailableProviderCount: () => 1,
      onBranchChange: () => () => {},
    });
    const shown = text(footer, 120);
    expect(shown).toContain("anthropic/claude-x");
    expect(shown).toContain("thinking high");
    expect(shown).toContain("ctx 800/1.0k (80%)");
    expect(shown).toContain("⎇ main");
    expect(shown).toContain("indexing 3 files");
    footer.setAutoCompactEnabled(false);
    expect(text(footer, 120)).toContain("auto-compact off");
  });

  it("aborts a cancellable loader's signal on Esc", () => {
    const theme = new Theme({ border: 8, accent: 14, text: "", muted: 8 } as never, {} as never, "256color");
    const loader = new BorderedLoader(host, theme, "Fetching…");
    let aborted = false;
    loader.onAbort = () => {
      aborted = true;
    };
    expect(text(loader)).toContain("Fetching…");
    expect(loader.signal.aborted).toBe(false);
    loader.handleInput(ESC);
    expect(loader.signal.aborted).toBe(true);
    expect(aborted).toBe(true);
    const fixed = new BorderedLoader(host, theme, "Working", { cancellable: false });
    fixed.handleInput(ESC);
    expect(fixed.signal.aborted).toBe(false);
    fixed.dispose();
  });

  it("shows the login URL, resolves a prompt on Enter, and rejects it when cancelled", async () => {
    const results: Array<[boolean, string | undefined]> = [];
    const d = new LoginDialogComponent(host, "anthropic", (ok, msg) => results.push([ok, msg]), "Anthropic");
    d.showAuth("https://example.test/auth?x=1", "Paste the code below");
    const code = d.showPrompt("Code:");
    for (const ch of "abc") d.handleInput(ch);
    d.handleInput(ENTER);
    expect(await code).toBe("abc");
    const shown = text(d);
    expect(shown).toContain("Log in to Anthropic");
    expect(shown).toContain("https://example.test/auth?x=1");
    const second = d.showPrompt("Again:");
    d.handleInput(ESC);
    await expect(second).rejects.toThrow("Login cancelled");
    expect(d.signal.aborted).toBe(true);
    expect(results).toEqual([[false, "Login cancelled"]]);
  });
});
