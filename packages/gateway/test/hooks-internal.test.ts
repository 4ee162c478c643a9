import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createInternalHookEvent, loadInternalHooks, parseHookEvents } from "../src/hooks/internal-hooks.js";

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-hooks-"));
  const hooks = join(home, "hooks");
  // Folder hook with HOOK.md and a TypeScript handler.
  mkdirSync(join(hooks, "greeter"), { recursive: true });
  writeFileSync(
    join(hooks, "greeter", "HOOK.md"),
    '---\nname: greeter\nevents: ["command:new", "command:reset"]\n---\nSays hi.\n',
  );
  writeFileSync(
    join(hooks, "greeter", "handler.ts"),
    `export default async function (event: { action: string; messages: string[] }): Promise<void> { event.messages.push(\`fresh start (\${event.action})\`); }\n`,
  );
  // Single-module hook listening to every command.
  writeFileSync(
    join(hooks, "logger.mjs"),
    "export const events = ['command'];\nexport default (e) => { e.context.log = (e.context.log ?? []).concat(e.type + ':' + e.action); };\n",
  );
  // Bootstrap hook declared through metadata JSON.
  mkdirSync(join(hooks, "extra-files"));
  writeFileSync(
    join(hooks, "extra-files", "HOOK.md"),
    '---\nmetadata: {"tiller":{"events":["agent:bootstrap"]}}\n---\n',
  );
  writeFileSync(
    join(hooks, "extra-files", "index.mjs"),
    "export default (e) => { e.context.bootstrapFiles.push({ name: 'EXTRA.md', path: '/x', content: 'hi' }); };\n",
  );
  // Broken hooks: a throwing handler and one without events.
  mkdirSync(join(hooks, "thrower"));
  writeFileSync(join(hooks, "thrower", "HOOK.md"), "---\nevents: command:stop\n---\n");
  writeFileSync(join(hooks, "thrower", "handler.mjs"), "export default () => { throw new Error('hook exploded'); };\n");
  writeFileSync(join(hooks, "noevents.mjs"), "export default () => {};\n");
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("gateway (internal) hooks", () => {
  it("loads folder and module hooks; reports hooks without events", async () => {
    const warnings: string[] = [];
    const reg = await loadInternalHooks({ home, logger: { warn: (m) => warnings.push(m) } });
    expect(reg.hooks.map((h) => h.name).sort()).toEqual(["extra-files", "greeter", "logger", "thrower"]);
    expect(reg.errors.map((e) => e.error)).toEqual([expect.stringContaining("declares no events")]);
  });

  it("command hooks run for /new and /reset; a type-level hook sees every command; messages reply to the user", async () => {
    const reg = await loadInternalHooks({ home, logger: { warn: () => {} } });
    const ev = await reg.trigger(createInternalHookEvent("command", "new", {}, "agent:main:main"));
    expect(ev.messages).toEqual(["fresh start (new)"]);
    expect(ev.context.log).toEqual(["command:new"]);
    const reset = await reg.trigger(createInternalHookEvent("command", "reset"));
    expect(reset.messages).toEqual(["fresh start (reset)"]);
  });

  it("a throwing hook on /stop is logged and skipped; the others still run", async () => {
    const warnings: string[] = [];
    const reg = await loadInternalHooks({ home, logger: { warn: (m) => warnings.push(m) } });
    const ev = await reg.trigger(createInternalHookEvent("command", "stop"));
    expect(ev.context.log).toEqual(["command:stop"]);
    expect(warnings.some((w) => w.includes("hook exploded"))).toBe(true);
  });

  it("agent:bootstrap hooks can add files", async () => {
    const reg = await loadInternalHooks({ home, logger: { warn: () => {} } });
    const files: unknown[] = [];
    await reg.trigger(createInternalHookEvent("agent", "bootstrap", { bootstrapFiles: files }));
    expect(files).toEqual([{ name: "EXTRA.md", path: "/x", content: "hi" }]);
  });

  it("a hook disabled in hooks.entries is not loaded", async () => {
    const reg = await loadInternalHooks({
      home,
      config: { hooks: { entries: { greeter: { enabled: false } } } },
      logger: { warn: () => {} },
    });
    expect(reg.hooks.map((h) => h.name)).not.toContain("greeter");
  });

  it("parses events as a JSON list, a comma list or metadata", () => {
    expect(parseHookEvents('---\nevents: ["a:b", "c"]\n---')).toEqual(["a:b", "c"]);
    expect(parseHookEvents("---\nevents: a:b, c\n---")).toEqual(["a:b", "c"]);
    expect(parseHookEvents('---\nmetadata: {"openclaw":{"events":["x"]}}\n---')).toEqual(["x"]);
    expect(parseHookEvents("no frontmatter")).toEqual([]);
  });
});
