/**
 * tiller.json is checked against one schema (config-schema.ts): every error names the file and the dotted key,
 * nested keys and array items included, and says what the schema expects there.
 */
import { describe, expect, it } from "vitest";
import { validateConfig } from "../src/config/load-config.js";

const bad = (input: unknown) => () => validateConfig(input, "/h", "/h/tiller.json");

describe("tiller.json schema", () => {
  it("names array items, nested keys and unknown keys", () => {
    expect(bad({ agents: { list: [{ id: "main" }, { id: "no spaces" }] } })).toThrow(
      '/h/tiller.json: agents.list[1].id: expected an id of letters, digits, - or _, got "no spaces"',
    );
    expect(bad({ agents: { defaults: { model: { primary: "a/b", fallbacks: ["x/y", 3] } } } })).toThrow(
      "/h/tiller.json: agents.defaults.model.fallbacks[1]: expected non-empty string, got 3",
    );
    expect(bad({ messages: { queue: { modes: "steer" } } })).toThrow(
      "/h/tiller.json: messages.queue.modes: unknown key (allowed: mode, debounceMs, cap, drop)",
    );
    expect(bad({ gateway: { auth: { token: "" } } })).toThrow(
      /gateway\.auth\.token: expected non-empty string or null/,
    );
    expect(bad({ agents: { defaults: { thinking: "max" } } })).toThrow(
      /agents\.defaults\.thinking: expected one of off \| minimal \| low \| medium \| high \| xhigh, got "max"/,
    );
    expect(bad([1])).toThrow(/\(root\): expected an object/);
  });

  it("fills the defaults and keeps the sections other modules read", () => {
    const c = validateConfig(
      { agents: { defaults: { model: { primary: "p/m", fallbacks: [" q/n "] } } }, tools: { profile: "coding" } },
      "/h",
    );
    expect(c.agents.defaults).toMatchObject({ model: "p/m", modelFallbacks: ["q/n"], maxConcurrent: 4 });
    expect(c.raw.tools).toEqual({ profile: "coding" });
    expect(c.agents.list).toEqual([{ id: "main", name: "main" }]);
  });
});
