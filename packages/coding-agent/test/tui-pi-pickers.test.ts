/**
 * pi's model, auth and theme pickers, footer, loader and login dialog on Tiller's terminal UI, with a real
 * model registry and auth storage: what each lists, what its keys answer, and that it fits the width. (The
 * session and tree pickers: tui-pi-session-picker.test.ts, tui-pi-tree-picker.test.ts.)
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
  SettingsManager,
  Theme,
  ThemeSelectorComponent,
} from "../src/index.js";

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
