/**
 * pi's `AgentSession.bindExtensions` and `createReplacedSessionContext`: a host's UI answers the extensions'
 * dialogs, its session controls serve their `/commands`, its shutdown handler serves `ctx.shutdown()`, its error
 * listener hears their failures; the replaced-session context sends messages into the session.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAgentSessionFromServices,
  createAgentSessionServices,
  createNoUIContext,
  type ExtensionError,
  SessionManager,
} from "../src/index.js";

const g = globalThis as { __bindLog?: string[] };
let dir: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-bind-ext-"));
  faux = registerFauxProvider();
  g.__bindLog = [];
});
afterEach(() => {
  faux.unregister();
  delete g.__bindLog;
  rmSync(dir, { recursive: true, force: true });
});

describe("AgentSession.bindExtensions", () => {
  it("binds the host's UI, command controls, shutdown handler and error listener", async () => {
    const agentDir = join(dir, "agent");
    const cwd = join(dir, "proj");
    mkdirSync(join(agentDir, "extensions"), { recursive: true });
    mkdirSync(cwd);
    writeFileSync(
      join(agentDir, "extensions", "host.ts"),
      `export default function (api) {
  const log = () => globalThis.__bindLog;
  api.registerCommand("ask", { handler: async (_args, ctx) => {
    log().push("confirm:" + (await ctx.ui.confirm("Proceed?", "really")));
    log().push("new:" + JSON.stringify(await ctx.newSession()));
    ctx.shutdown();
  } });
  api.registerCommand("broken", { handler: async () => { throw new Error("command failed"); } });
}\n`,
    );
    const services = await createAgentSessionServices({ cwd, agentDir });
    const { session } = await createAgentSessionFromServices({
      services,
      sessionManager: SessionManager.inMemory(cwd),
      model: faux.getModel(),
    });
    const log = g.__bindLog as string[];
    const errors: ExtensionError[] = [];
    await session.bindExtensions({
      uiContext: { ...createNoUIContext(), confirm: async (title) => title === "Proceed?" },
      commandContextActions: {
        waitForIdle: async () => {},
        newSession: async () => {
          log.push("host newSession");
          return { cancelled: true };
        },
        fork: async () => ({ cancelled: false }),
        navigateTree: async () => ({ cancelled: false }),
        switchSession: async () => ({ cancelled: false }),
        reload: async () => {},
      },
      shutdownHandler: () => log.push("host shutdown"),
      onError: (e) => errors.push(e),
    });
    expect(await session.extensionRunner.runCommand("/ask")).toBe(true);
    expect(log).toEqual(["confirm:true", "host newSession", 'new:{"cancelled":true}', "host shutdown"]);
    await session.extensionRunner.runCommand("/broken");
    expect(errors.map((e) => `${e.event}:${e.error}`)).toEqual(["command:/broken:command failed"]);

    const replaced = session.createReplacedSessionContext();
    expect(replaced.sessionManager.getSessionId()).toBe(session.sessionId);
    await replaced.sendMessage({ customType: "note", content: "from withSession", display: true });
    expect(session.messages.some((m) => m.role === "custom" && m.content === "from withSession")).toBe(true);
    session.dispose();
  });
});
