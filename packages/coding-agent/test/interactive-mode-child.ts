// Child process for tui-pi-interactive-mode.test.ts: pi's SDK way of opening the terminal UI — build a runtime,
// then `new InteractiveMode(runtime, options).run()`, taking one line with getUserInput(). argv[2] is the initial message; cwd and TILLER_HOME come
// from the environment (no provider configured: the offline model answers).
import {
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  getAgentDir,
  InteractiveMode,
  SessionManager,
} from "../src/index.js";

const cwd = process.cwd();
const runtime = await createAgentSessionRuntime(
  async (o) => {
    const services = await createAgentSessionServices({ cwd: o.cwd, agentDir: o.agentDir });
    const created = await createAgentSessionFromServices({ services, sessionManager: o.sessionManager });
    return { ...created, services, diagnostics: services.diagnostics };
  },
  { cwd, agentDir: getAgentDir(), sessionManager: SessionManager.create(cwd) },
);
const mode = new InteractiveMode(runtime, {
  ...(process.argv[2] ? { initialMessage: process.argv[2] } : {}),
  modelFallbackMessage: "fallback notice from the options",
});
await mode.init();
mode.showWarning("warned by the program before run()");
const running = mode.run();
// The next text the user submits comes to the program instead of the agent.
const captured = await mode.getUserInput();
mode.showError(`the program captured: ${captured}`);
await running;
process.stdout.write(`MODE-ENDED session=${runtime.session.sessionFile ?? "none"}\n`);
process.exit(0);
