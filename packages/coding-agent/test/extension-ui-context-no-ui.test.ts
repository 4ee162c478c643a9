/**
 * pi's UI members that take terminal-UI components (`custom`, `setFooter`, `setHeader`, component widgets, the
 * editor and theme calls) exist on an extension's `ctx.ui`, and without a UI answer as pi's context without one:
 * a custom component resolves as dismissed at once, factories are never called, theme switches fail with a
 * reason, and `theme` is the theme in use.
 */
import * as pi from "@mariozechner/pi-coding-agent";
import { describe, expect, it } from "vitest";
import * as tiller from "../src/index.js";

/** pi's UI context of a runner without a UI (what its print and RPC modes hand extensions). */
function piNoUi(): pi.ExtensionUIContext {
  // pi's theme exists once initialised (its modes do it at start-up; Tiller's is there from the start).
  pi.initTheme("dark");
  const runner = new pi.ExtensionRunner(
    [],
    pi.createExtensionRuntime(),
    process.cwd(),
    pi.SessionManager.inMemory(),
    pi.ModelRegistry.inMemory(pi.AuthStorage.inMemory()),
  );
  return runner.getUIContext();
}

/** What each UI call answers, with whether any factory handed to it was called. */
async function answers(ui: tiller.ExtensionUIContext | pi.ExtensionUIContext) {
  const called: string[] = [];
  const factory = (name: string) => () => {
    called.push(name);
    return { render: () => [], invalidate: () => {} };
  };
  const u = ui as tiller.ExtensionUIContext;
  const custom = await u.custom<string>((_tui, _theme, _keys, done) => {
    called.push("custom");
    done("picked");
    return { render: () => [], invalidate: () => {} };
  });
  u.setFooter(factory("footer"));
  u.setHeader(factory("header"));
  u.setWidget("w", factory("widget"));
  u.setWidget("w", ["a line"]);
  u.addAutocompleteProvider((current) => {
    called.push("autocomplete");
    return current;
  });
  u.setEditorComponent(factory("editor") as never);
  return {
    custom,
    called,
    editorComponent: u.getEditorComponent(),
    getTheme: u.getTheme("dark"),
    setTheme: u.setTheme("light"),
    allThemes: u.getAllThemes(),
    themeHasFg: typeof u.theme.fg === "function",
  };
}

describe("extension UI without a UI (pi's terminal-UI members)", () => {
  it("answers every terminal-UI call as pi's context without a UI", async () => {
    const ours = await answers(tiller.createNoUIContext());
    expect(ours).toEqual({
      custom: undefined,
      called: [],
      editorComponent: undefined,
      getTheme: undefined,
      setTheme: { success: false, error: "UI not available" },
      allThemes: [],
      themeHasFg: true,
    });
    expect(ours).toEqual(await answers(piNoUi()));
  });

  it("hands out the theme in use, which follows initTheme", () => {
    const ui = tiller.createNoUIContext();
    tiller.initTheme("light");
    const light = ui.theme;
    tiller.initTheme("dark");
    expect(ui.theme).not.toBe(light);
    expect(ui.theme.fg("accent", "x")).toContain("x");
  });
});
