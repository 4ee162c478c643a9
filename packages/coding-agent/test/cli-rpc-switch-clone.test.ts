/**
 * pi's RPC `switch_session` and `clone` in `tiller --mode rpc`: switching continues in another session file (its
 * history is what the model sees next), cloning copies the whole branch into a new file; an extension's
 * `session_before_switch` / `session_before_fork` can cancel either; a missing file is a clear error.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { type RpcChild, startRpc } from "./cli-helpers/rpc-client.js";

let server: MockServer;
let fx: CliFixture;

beforeAll(async () => {
  server = await startMockOpenAI((body) => ({ text: `answer to ${lastUserText(body)}` }));
  fx = makeFixture(server, "tiller-rpc-switch-");
});
afterAll(async () => {
  await server.close();
  fx.cleanup();
});

async function prompt(rpc: RpcChild, text: string): Promise<void> {
  const from = rpc.lines.length;
  expect(await rpc.request({ type: "prompt", message: text })).toMatchObject({ success: true });
  await rpc.waitFor((l) => l.type === "agent_end", `end of "${text}"`, from);
}

async function sessionFile(rpc: RpcChild): Promise<string> {
  return ((await rpc.request({ type: "get_state" })).data as { sessionFile: string }).sessionFile;
}

describe("tiller --mode rpc: switch_session and clone", () => {
  it("switch_session continues in another file; clone copies the branch into a new file", async () => {
    const rpc = startRpc([], { cwd: fx.project, env: fx.env });
    try {
      await prompt(rpc, "topic alpha");
      const first = await sessionFile(rpc);
      expect(await rpc.request({ type: "new_session" })).toMatchObject({ success: true, data: { cancelled: false } });
      await prompt(rpc, "topic beta");
      const second = await sessionFile(rpc);
      expect(second).not.toBe(first);

      const switched = await rpc.request({ type: "switch_session", sessionPath: first });
      expect(switched).toMatchObject({ success: true, command: "switch_session", data: { cancelled: false } });
      expect(await sessionFile(rpc)).toBe(first);
      await prompt(rpc, "topic gamma");
      const sent = JSON.stringify(server.requests.find((r) => lastUserText(r) === "topic gamma")!.messages);
      expect(sent).toContain("topic alpha");
      expect(sent).not.toContain("topic beta");
      expect(readFileSync(first, "utf8")).toContain("topic gamma");
      expect(readFileSync(second, "utf8")).not.toContain("topic gamma");

      const cloned = await rpc.request({ type: "clone" });
      expect(cloned).toMatchObject({ success: true, command: "clone", data: { cancelled: false } });
      const copy = await sessionFile(rpc);
      expect(copy).not.toBe(first);
      const copyText = readFileSync(copy, "utf8");
      expect(copyText).toContain("topic alpha");
      expect(copyText).toContain("topic gamma");

      const missing = await rpc.request({ type: "switch_session", sessionPath: join(fx.project, "nope.jsonl") });
      expect(missing).toMatchObject({ success: false, command: "switch_session" });
      expect(String(missing.error)).toContain("no session file at");
      expect(await sessionFile(rpc)).toBe(copy);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });

  it("an extension cancels switch_session and clone through session_before_switch / session_before_fork", async () => {
    const ext = join(fx.home, "extensions");
    mkdirSync(ext, { recursive: true });
    writeFileSync(
      join(ext, "veto.ts"),
      `export default function (api) {
  api.on("session_before_switch", (e) => ({ cancel: e.reason === "resume" }));
  api.on("session_before_fork", (e) => ({ cancel: e.position === "at" }));
}\n`,
    );
    const rpc = startRpc([], { cwd: fx.project, env: fx.env });
    try {
      await prompt(rpc, "topic delta");
      const current = await sessionFile(rpc);
      await rpc.request({ type: "new_session" });
      await prompt(rpc, "topic epsilon");
      const other = await sessionFile(rpc);
      const switched = await rpc.request({ type: "switch_session", sessionPath: current });
      expect(switched).toMatchObject({ success: true, data: { cancelled: true } });
      expect(await sessionFile(rpc)).toBe(other);
      const cloned = await rpc.request({ type: "clone" });
      expect(cloned).toMatchObject({ success: true, data: { cancelled: true } });
      expect(await sessionFile(rpc)).toBe(other);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });
});
