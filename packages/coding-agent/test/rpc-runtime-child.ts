// Child process for pi-runtime.test.ts: pi's SDK way of serving RPC — build a runtime, then runRpcMode(runtime).
// The CLI arguments RpcClient appends (--mode rpc …) are ignored; cwd and TILLER_HOME come from the environment.
import {
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  getAgentDir,
  runRpcMode,
  SessionManager,
} from "../src/index.js";

const cwd = process.cwd();
const runtime = await createAgentSessionRuntime(
  async (o) => {
    const services = await createAgentSessionServices({ cwd: o.cwd, agentDir: o.agentDir });
    const created = await createAgentSessionFromServices({
      services,
      sessionManager: o.sessionManager,
      tools: ["read"],
    });
    return { ...created, services, diagnostics: services.diagnostics };
  },
  { cwd, agentDir: getAgentDir(), sessionManager: SessionManager.inMemory(cwd) },
);
await runRpcMode(runtime);
