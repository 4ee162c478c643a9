// Child process for approvals-session-resume.test.ts: a session whose bash call waits for approval; it reports the
// pending approval as one JSON line, then waits to be killed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fauxAssistantMessage, fauxToolCall, registerFauxProvider } from "@tiller/ai";
import { EXEC_TOOL_NAMES, ExecApprovals, execApprovalRule } from "../src/approvals/index.js";
import { createAgentSession, SessionManager, SettingsManager } from "../src/index.js";
import { buildToolPipeline, createBashTool } from "../src/tools/index.js";

const [dir] = process.argv.slice(2) as [string];
const policyFile = join(dir, "exec-approvals.json");
writeFileSync(policyFile, JSON.stringify({ security: "full", ask: "always" }), { mode: 0o600 });
const approvals = ExecApprovals.load(policyFile);
const faux = registerFauxProvider();
faux.setResponses([fauxAssistantMessage([fauxToolCall("bash", { command: `touch ${join(dir, "resumed.txt")}` })])]);
const tools = buildToolPipeline({
  base: [createBashTool(dir)],
  approvals: { tools: EXEC_TOOL_NAMES, rule: execApprovalRule(approvals, { cwd: dir, canAsk: true }) },
});
const { session } = await createAgentSession({
  cwd: dir,
  model: faux.getModel(),
  tools,
  sessionManager: SessionManager.create(dir, dir),
  settingsManager: SettingsManager.inMemory(),
});
session.subscribe(
  (event) => {
    if (event.type === "tool_approval_request") {
      // What a gateway stores before announcing the request.
      process.stdout.write(`${JSON.stringify({ file: session.sessionFile, approval: event.approval })}\n`);
    }
  },
  { tillerEvents: true },
);
void session.prompt("make the file");
setInterval(() => {}, 1000);
