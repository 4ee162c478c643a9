// Child process for session-crash.test.ts: runs one turn with the faux model, reports, then waits to be killed.
import { fauxAssistantMessage, registerFauxProvider } from "@tiller/ai";
import { createAgentSession, SessionManager, SettingsManager } from "../src/index.js";

const [dir] = process.argv.slice(2) as [string];
const faux = registerFauxProvider();
faux.setResponses([fauxAssistantMessage("the answer")]);
const { session } = await createAgentSession({
  cwd: "/proj",
  model: faux.getModel(),
  sessionManager: SessionManager.create("/proj", dir),
  settingsManager: SettingsManager.inMemory(),
});
await session.prompt("the question");
process.stdout.write(`done ${session.sessionFile}\n`);
setInterval(() => {}, 1000);
