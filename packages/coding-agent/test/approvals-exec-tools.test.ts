/**
 * Exec approvals wired through the tool pipeline into a real agent run: every tool named bash or exec — built-in
 * or an extension's own — asks before an unlisted command runs; deny keeps the command from running and tells
 * the model; allow-always runs it, adds it to exec-approvals.json, and the next call runs without asking.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, type AgentTool, type PendingApproval } from "@tiller/agent";
import {
  type FauxProviderRegistration,
  fauxAssistantMessage,
  fauxToolCall,
  registerFauxProvider,
  type ToolResultMessage,
  Type,
} from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EXEC_TOOL_NAMES, ExecApprovals, execApprovalRule } from "../src/approvals/index.js";
import { buildToolPipeline, createAllTools, ProcessRegistry } from "../src/tools/index.js";

let dir: string;
let file: string;
let faux: FauxProviderRegistration;
let registry: ProcessRegistry;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-exec-tools-"));
  file = join(dir, "exec-approvals.json");
  writeFileSync(file, JSON.stringify({ security: "allowlist", ask: "on-miss", allowlist: [] }), { mode: 0o600 });
  faux = registerFauxProvider();
  registry = new ProcessRegistry();
});

afterEach(() => {
  faux.unregister();
  rmSync(dir, { recursive: true, force: true });
});

function agentWith(tools: AgentTool[]) {
  const approvals = ExecApprovals.load(file);
  const gated = buildToolPipeline({
    base: tools,
    approvals: { tools: EXEC_TOOL_NAMES, rule: execApprovalRule(approvals, { cwd: dir, canAsk: true }) },
  });
  const agent = new Agent({ initialState: { model: faux.getModel(), tools: gated } });
  agent.subscribe((event) => void approvals.onAgentEvent(event));
  const asked: PendingApproval[] = [];
  const onAsk: Array<(a: PendingApproval) => void> = [];
  agent.subscribe("tool_approval_request", (e) => {
    asked.push(e.approval);
    for (const f of onAsk.splice(0)) f(e.approval);
  });
  const nextAsk = () => new Promise<PendingApproval>((resolve) => onAsk.push(resolve));
  return { agent, asked, nextAsk };
}

const results = (agent: Agent) => agent.state.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const text = (m: ToolResultMessage | undefined) => (m?.content[0]?.type === "text" ? m.content[0].text : "");

describe("exec approvals on bash and exec", () => {
  it("bash: deny keeps an unlisted command from running; the model reads the denial", async () => {
    const all = createAllTools(dir);
    const { agent, nextAsk } = agentWith([all.bash!, all.read!]);
    faux.setResponses([
      fauxAssistantMessage([fauxToolCall("bash", { command: "touch made.txt" })]),
      fauxAssistantMessage("ok"),
    ]);
    const asking = nextAsk();
    const run = agent.prompt("make a file");
    const approval = await asking;
    expect(approval.request.description).toBe("touch made.txt");
    agent.resolveApproval(approval.id, "deny", { reason: "no new files" });
    await run;
    expect(existsSync(join(dir, "made.txt"))).toBe(false);
    expect(results(agent)[0]?.isError).toBe(true);
    expect(text(results(agent)[0])).toContain("Reason: no new files");
  });

  it("bash: allow-always runs it, writes the executable to the allowlist, and the next call does not ask", async () => {
    const all = createAllTools(dir);
    const { agent, asked, nextAsk } = agentWith([all.bash!]);
    faux.setResponses([
      fauxAssistantMessage([fauxToolCall("bash", { command: "touch one.txt" })]),
      fauxAssistantMessage([fauxToolCall("bash", { command: "touch two.txt && touch three.txt" })]),
      fauxAssistantMessage("done"),
    ]);
    const asking = nextAsk();
    const run = agent.prompt("make files");
    agent.resolveApproval((await asking).id, "allow-always");
    await run;
    expect(["one.txt", "two.txt", "three.txt"].map((f) => existsSync(join(dir, f)))).toEqual([true, true, true]);
    expect(asked).toHaveLength(1);
    const saved = JSON.parse(readFileSync(file, "utf8")) as { allowlist: { pattern: string; source?: string }[] };
    expect(saved.allowlist).toHaveLength(1);
    expect(saved.allowlist[0]!.pattern).toMatch(/\/touch$/);
    expect(saved.allowlist[0]!.source).toBe("allow-always");
  });

  it("exec (and its workdir) is gated the same way; allow-once does not add to the allowlist", async () => {
    const all = createAllTools(dir, { processRegistry: registry });
    const { agent, nextAsk } = agentWith([all.exec!]);
    faux.setResponses([
      fauxAssistantMessage([fauxToolCall("exec", { command: "touch via-exec.txt", workdir: "." })]),
      fauxAssistantMessage("done"),
    ]);
    const asking = nextAsk();
    const run = agent.prompt("go");
    const approval = await asking;
    expect(approval.request.meta).toMatchObject({ kind: "exec", command: "touch via-exec.txt", cwd: dir });
    agent.resolveApproval(approval.id, "allow-once");
    await run;
    expect(existsSync(join(dir, "via-exec.txt"))).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8")).allowlist).toEqual([]);
  });

  it("a tool named bash that is not the built-in one (an extension's) is gated too, with its own rule kept", async () => {
    const ran: string[] = [];
    const custom: AgentTool = {
      name: "bash",
      label: "remote bash",
      description: "",
      parameters: Type.Object({ command: Type.String() }),
      requiresApproval: (args) =>
        String(args.command).includes("secret") ? { block: true, reason: "no secrets" } : false,
      execute: async (_id, params) => {
        ran.push((params as { command: string }).command);
        return { content: [{ type: "text", text: "ran" }], details: {} };
      },
    };
    writeFileSync(file, JSON.stringify({ security: "allowlist", ask: "on-miss", allowlist: [{ pattern: "cat" }] }));
    const { agent, asked } = agentWith([custom]);
    faux.setResponses([
      fauxAssistantMessage([
        fauxToolCall("bash", { command: "cat secret.txt" }),
        fauxToolCall("bash", { command: "cat a.txt" }),
      ]),
      fauxAssistantMessage("done"),
    ]);
    await agent.prompt("go");
    expect(asked).toHaveLength(0); // cat is allowlisted
    expect(ran).toEqual(["cat a.txt"]); // the tool's own rule still blocked the first
    expect(text(results(agent)[0])).toBe("no secrets");
  });
});
