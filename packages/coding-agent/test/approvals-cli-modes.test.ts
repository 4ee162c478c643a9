/**
 * Exec approvals in the CLI modes, end to end against a loopback model: print mode applies `askFallback` (nobody
 * can be asked), rpc mode sends a `tool_approval_request` line and reads the `resolve_approval` command, and a
 * broken exec-approvals.json stops the CLI with an error naming the key.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { startRpc } from "./cli-helpers/rpc-client.js";
import { runCli } from "./cli-helpers/spawn-cli.js";

let server: MockServer;
let fx: CliFixture;
let approvalsFile: string;

beforeAll(async () => {
  server = await startMockOpenAI((body) => {
    const last = body.messages[body.messages.length - 1]!;
    if (last.role === "tool") return { text: `tool said: ${JSON.stringify(last.content)}` };
    // "make <name>": the model runs `touch <name>` in the project.
    const m = /make (\S+)/.exec(lastUserText(body));
    if (m) return { toolCalls: [{ name: "bash", arguments: { command: `touch ${m[1]}` } }] };
    if (lastUserText(body).includes("ship it")) return { toolCalls: [{ name: "deploy", arguments: {} }] };
    return { text: "nothing to do" };
  });
  fx = makeFixture(server, "tiller-approvals-cli-");
  approvalsFile = join(fx.home, "exec-approvals.json");
});

afterAll(async () => {
  await server.close();
  fx.cleanup();
});

beforeEach(() => rmSync(approvalsFile, { force: true }));

function writePolicy(policy: Record<string, unknown>): void {
  writeFileSync(approvalsFile, JSON.stringify(policy), { mode: 0o600 });
}

describe("print mode", () => {
  it("askFallback deny (the default): the unlisted command does not run and the model is told why", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss" });
    const r = await runCli(["-p", "--no-session", "make denied.txt"], { cwd: fx.project, env: fx.env });
    expect(r.code).toBe(0);
    expect(existsSync(join(fx.project, "denied.txt"))).toBe(false);
    expect(r.stdout).toContain("nobody can be asked here (askFallback: deny)");
  });

  it("askFallback full: the command runs without asking", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss", askFallback: "full" });
    const r = await runCli(["-p", "--no-session", "make allowed.txt"], { cwd: fx.project, env: fx.env });
    expect(r.code).toBe(0);
    expect(existsSync(join(fx.project, "allowed.txt"))).toBe(true);
  });

  it("any other tool that needs approval is denied at once in json/print mode (nobody can be asked)", async () => {
    const ext = join(fx.root, "deploy-ext.mjs");
    const marker = join(fx.root, "deployed.txt");
    writeFileSync(
      ext,
      `import { writeFileSync } from "node:fs";
       export default (api) => api.registerTool({
         name: "deploy", label: "deploy", description: "Deploy.", requiresApproval: true,
         parameters: { type: "object", properties: {} },
         execute: async () => { writeFileSync(${JSON.stringify(marker)}, "x"); return { content: [{ type: "text", text: "deployed" }], details: {} }; },
       });`,
    );
    const r = await runCli(["--mode", "json", "--no-session", "-e", ext, "ship it"], { cwd: fx.project, env: fx.env });
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    expect(events.find((e) => e.type === "tool_approval_request")).toBeDefined();
    expect(events.find((e) => e.type === "tool_approval_end")).toMatchObject({
      resolution: { decision: "deny", by: "tiller", reason: "nobody can be asked in this mode" },
    });
    expect(events.find((e) => e.type === "tool_execution_end")).toMatchObject({ toolName: "deploy", isError: true });
  });

  it("a broken exec-approvals.json stops the CLI with an error naming the key; the file is left as it was", async () => {
    writeFileSync(approvalsFile, JSON.stringify({ security: "strict" }), { mode: 0o600 });
    const r = await runCli(["-p", "--no-session", "make never.txt"], { cwd: fx.project, env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('security must be one of "deny", "allowlist", "full" (got "strict")');
    expect(r.stderr).toContain(approvalsFile);
    expect(existsSync(join(fx.project, "never.txt"))).toBe(false);
    expect(readFileSync(approvalsFile, "utf8")).toBe(JSON.stringify({ security: "strict" }));
  });
});

describe("rpc mode", () => {
  it("sends a tool_approval_request line and runs, denies or allowlists the command as the client decides", async () => {
    writePolicy({ security: "allowlist", ask: "on-miss" });
    const rpc = startRpc(["--no-session"], { cwd: fx.project, env: fx.env });
    try {
      // allow-always: runs, and the executable joins the allowlist.
      let from = rpc.lines.length;
      expect(await rpc.request({ type: "prompt", message: "make rpc-one.txt" })).toMatchObject({ success: true });
      const line = await rpc.waitFor((l) => l.type === "tool_approval_request", "an approval request line", from);
      const approval = line.approval as { id: string; request: { meta: { command: string } } };
      expect(approval.request.meta.command).toBe("touch rpc-one.txt");
      const pending = await rpc.request({ type: "get_pending_approvals" });
      expect((pending.data as { approvals: { id: string }[] }).approvals.map((a) => a.id)).toEqual([approval.id]);
      expect(
        await rpc.request({ type: "resolve_approval", approvalId: approval.id, decision: "sometimes" }),
      ).toMatchObject({ success: false, error: expect.stringContaining('"decision" must be') });
      expect(
        await rpc.request({ type: "resolve_approval", approvalId: approval.id, decision: "allow-always" }),
      ).toMatchObject({ success: true });
      const end = await rpc.waitFor((l) => l.type === "tool_approval_end", "the approval end", from);
      expect(end).toMatchObject({ resolution: { decision: "allow-always", by: "rpc" }, cause: "decided" });
      await rpc.waitFor((l) => l.type === "agent_end", "the run to end", from);
      expect(existsSync(join(fx.project, "rpc-one.txt"))).toBe(true);
      const saved = JSON.parse(readFileSync(approvalsFile, "utf8")) as { allowlist: { pattern: string }[] };
      expect(saved.allowlist.map((e) => e.pattern)).toEqual([expect.stringMatching(/\/touch$/)]);

      // Now touch is allowlisted: no request.
      from = rpc.lines.length;
      await rpc.request({ type: "prompt", message: "make rpc-two.txt" });
      await rpc.waitFor((l) => l.type === "agent_end", "the second run", from);
      expect(rpc.lines.slice(from).some((l) => l.type === "tool_approval_request")).toBe(false);
      expect(existsSync(join(fx.project, "rpc-two.txt"))).toBe(true);

      // An unknown id is an error response.
      expect(await rpc.request({ type: "resolve_approval", approvalId: "approval_x", decision: "deny" })).toMatchObject(
        {
          success: false,
          error: expect.stringContaining('no pending approval "approval_x"'),
        },
      );
    } finally {
      await rpc.close();
    }
  });

  it("deny with a reason: the command does not run and the model reads the reason", async () => {
    writePolicy({ security: "allowlist", ask: "always", allowlist: [{ pattern: "touch" }] });
    const rpc = startRpc(["--no-session"], { cwd: fx.project, env: fx.env });
    try {
      await rpc.request({ type: "prompt", message: "make rpc-denied.txt" });
      const line = await rpc.waitFor((l) => l.type === "tool_approval_request", "an approval request");
      const id = (line.approval as { id: string }).id;
      await rpc.request({ type: "resolve_approval", approvalId: id, decision: "deny", reason: "read-only today" });
      await rpc.waitFor((l) => l.type === "agent_end", "the run to end");
      expect(existsSync(join(fx.project, "rpc-denied.txt"))).toBe(false);
      const toolReq = server.requests.find((r) => JSON.stringify(r.messages).includes("read-only today"));
      expect(toolReq).toBeDefined();
    } finally {
      await rpc.close();
    }
  });
});

describe("extensions", () => {
  it("a tool_call handler returning requireApproval pauses the call; the rpc client decides", async () => {
    const ext = join(fx.root, "ask-ext.mjs");
    writeFileSync(
      ext,
      `export default (api) => api.on("tool_call", (ev) =>
         ev.toolName === "bash" ? { requireApproval: { title: "Extension asks", description: ev.input.command, severity: "critical" } } : undefined);`,
    );
    const rpc = startRpc(["--no-session", "-e", ext], { cwd: fx.project, env: fx.env });
    try {
      await rpc.request({ type: "prompt", message: "make ext-asked.txt" });
      const line = await rpc.waitFor((l) => l.type === "tool_approval_request", "an approval request");
      const approval = line.approval as { id: string; request: { title: string; severity: string } };
      expect(approval.request).toMatchObject({ title: "Extension asks", severity: "critical" });
      expect(existsSync(join(fx.project, "ext-asked.txt"))).toBe(false);
      await rpc.request({ type: "resolve_approval", approvalId: approval.id, decision: "allow-once" });
      await rpc.waitFor((l) => l.type === "agent_end", "the run to end");
      expect(existsSync(join(fx.project, "ext-asked.txt"))).toBe(true);
    } finally {
      await rpc.close();
    }
  });
});
