/**
 * A listener written against pi's types (pi has no approvals) on a session whose tool needs approval: it is
 * accepted as it is, never meets Tiller's approval events (or `model_changed`), and still gets every pi event of
 * the run; a listener that asks for Tiller's events (`{ tillerEvents: true }`) sees the request and its end, and
 * decides it. The same for RpcClient over a real `tiller --mode rpc` child.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as Pi from "@mariozechner/pi-coding-agent";
import type { AgentTool } from "@tiller/agent";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider, Type } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createAgentSession,
  isTillerOnlyEvent,
  RpcClient,
  SessionManager,
  SettingsManager,
  type TillerSessionEvent,
} from "../src/index.js";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { CLI_SOURCE, SOURCE_NODE_ARGS } from "./cli-helpers/spawn-cli.js";

/** The types a run of one approved tool call shows to pi's listener, in order. */
const PI_RUN = [
  "agent_start",
  "turn_start",
  "message_start",
  "message_end",
  "message_start",
  "message_end",
  "tool_execution_start",
  "tool_execution_end",
  "message_start",
  "message_end",
  "turn_end",
  "turn_start",
  "message_start",
  "message_end",
  "turn_end",
  "agent_end",
];

/** Event types without the streaming deltas (their count depends on the provider's chunking). */
const typesOf = (events: readonly { type: string }[]) =>
  events.map((e) => e.type).filter((t) => t !== "message_update" && t !== "tool_execution_update");

describe("AgentSession: pi-typed listeners and approvals", () => {
  let dir: string;
  let faux: ReturnType<typeof registerFauxProvider>;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tiller-pi-listeners-"));
    faux = registerFauxProvider({ models: [{ id: "one" }, { id: "two" }] });
  });
  afterEach(() => {
    faux.unregister();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a pi listener sees every pi event and no approval; an opting-in one sees the request, its end, and decides", async () => {
    const ran: string[] = [];
    const deploy: AgentTool = {
      name: "deploy",
      label: "deploy",
      description: "Deploy the build.",
      parameters: Type.Object({}),
      requiresApproval: true,
      execute: async () => {
        ran.push("deploy");
        return { content: [{ type: "text", text: "deployed" }], details: {} };
      },
    };
    faux.setResponses([fauxAssistantMessage([fauxToolCall("deploy", {})]), fauxAssistantMessage("shipped")]);
    const { session } = await createAgentSession({
      cwd: dir,
      model: faux.getModel("one"),
      tools: [deploy],
      sessionManager: SessionManager.inMemory(dir),
      settingsManager: SettingsManager.inMemory(),
    });
    try {
      // Typed with pi's own listener type: it must be accepted by subscribe as it is.
      const piSeen: Pi.AgentSessionEvent[] = [];
      const piListener: Pi.AgentSessionEventListener = (event) => {
        piSeen.push(event);
      };
      session.subscribe(piListener);
      const allSeen: TillerSessionEvent[] = [];
      session.subscribe(
        (event) => {
          allSeen.push(event);
          if (event.type === "tool_approval_request") session.resolveApproval(event.approval.id, "allow-once");
        },
        { tillerEvents: true },
      );

      await session.prompt("ship it");

      expect(ran).toEqual(["deploy"]);
      expect(typesOf(piSeen)).toEqual(PI_RUN);
      const approvals = allSeen.filter((e) => e.type === "tool_approval_request" || e.type === "tool_approval_end");
      expect(approvals.map((e) => e.type)).toEqual(["tool_approval_request", "tool_approval_end"]);
      expect(approvals[1]).toMatchObject({ resolution: { decision: "allow-once" }, cause: "decided" });
      // The request comes after its call's start and before its end; the rest is exactly what pi's listener got.
      const all = typesOf(allSeen);
      expect(all.indexOf("tool_approval_request")).toBeGreaterThan(all.indexOf("tool_execution_start"));
      expect(all.indexOf("tool_approval_end")).toBeLessThan(all.indexOf("tool_execution_end"));
      expect(allSeen.filter((e) => !isTillerOnlyEvent(e))).toEqual(piSeen);

      // model_changed is Tiller's too: only the opting-in listener gets it.
      const before = [piSeen.length, allSeen.length];
      const two = faux.getModel("two");
      if (!two) throw new Error("the faux provider has no model two");
      await session.setModel(two);
      expect(piSeen.length).toBe(before[0]);
      expect(allSeen.slice(before[1]).map((e) => e.type)).toEqual(["model_changed"]);
    } finally {
      session.dispose();
    }
  });
});

describe("RpcClient: pi-typed listeners and approvals over `tiller --mode rpc`", () => {
  let server: MockServer;
  let fx: CliFixture;
  beforeEach(async () => {
    server = await startMockOpenAI((body) => {
      const last = body.messages[body.messages.length - 1];
      if (last?.role === "tool") return { text: "done" };
      const m = /make (\S+)/.exec(lastUserText(body));
      return m ? { toolCalls: [{ name: "bash", arguments: { command: `touch ${m[1]}` } }] } : { text: "nothing" };
    });
    fx = makeFixture(server, "tiller-rpc-pi-listeners-");
    // Every command not on the (empty) allowlist waits for a decision.
    writeFileSync(join(fx.home, "exec-approvals.json"), JSON.stringify({ security: "allowlist", ask: "on-miss" }), {
      mode: 0o600,
    });
  });
  afterEach(async () => {
    await server.close();
    fx.cleanup();
  });

  it("onEvent/collectEvents hand a pi listener pi's events only; with tillerEvents the approval lines too", async () => {
    const client = new RpcClient({
      cliPath: CLI_SOURCE,
      nodeArgs: SOURCE_NODE_ARGS,
      cwd: fx.project,
      env: fx.env as Record<string, string>,
      args: ["--no-session"],
    });
    await client.start();
    try {
      const piSeen: string[] = [];
      const piListener: Pi.RpcEventListener = (event) => {
        piSeen.push(event.type);
      };
      client.onEvent(piListener);
      const decided: string[] = [];
      client.onEvent(
        (event) => {
          if (event.type !== "tool_approval_request") return;
          decided.push(event.approval.id);
          void client.resolveApproval(event.approval.id, "allow-once");
        },
        { tillerEvents: true },
      );
      const piEvents = client.collectEvents(120_000);
      const allEvents = client.collectEvents(120_000, { tillerEvents: true });
      await client.prompt("make rpc-approved.txt");
      const [pi, all] = await Promise.all([piEvents, allEvents]);

      expect(existsSync(join(fx.project, "rpc-approved.txt"))).toBe(true);
      expect(decided).toHaveLength(1);
      const allTypes = typesOf(all);
      expect(allTypes.filter((t) => t.startsWith("tool_approval"))).toEqual([
        "tool_approval_request",
        "tool_approval_end",
      ]);
      expect(all.find((e) => e.type === "tool_approval_end")).toMatchObject({
        resolution: { decision: "allow-once", by: "rpc" },
      });
      // pi's view: the same lines without Tiller's, every pi event of the run still there.
      expect(typesOf(pi)).toEqual(allTypes.filter((t) => !t.startsWith("tool_approval")));
      expect(typesOf(pi)).toEqual(expect.arrayContaining(["agent_start", "tool_execution_end", "agent_end"]));
      expect(piSeen.some((t) => t.startsWith("tool_approval"))).toBe(false);
      expect(await client.getPendingApprovals()).toEqual([]);
    } finally {
      await client.stop();
    }
  }, 180_000);
});
