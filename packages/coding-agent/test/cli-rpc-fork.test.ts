import { readFileSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { lastUserText, type MockServer, startMockOpenAI } from "./cli-helpers/mock-openai.js";
import { startRpc } from "./cli-helpers/rpc-client.js";

let server: MockServer;
let fx: CliFixture;

beforeAll(async () => {
  server = await startMockOpenAI((body) => ({ text: `answer to ${lastUserText(body)}` }));
  fx = makeFixture(server, "tiller-fork-");
});
afterAll(async () => {
  await server.close();
  fx.cleanup();
});

describe("tiller --mode rpc: fork", () => {
  it("forks into a new session file; the parent file is left untouched and the fork continues without the later turns", async () => {
    const rpc = startRpc([], { cwd: fx.project, env: fx.env });
    try {
      for (const text of ["first topic", "second topic"]) {
        const from = rpc.lines.length;
        expect(await rpc.request({ type: "prompt", message: text })).toMatchObject({ success: true });
        await rpc.waitFor((l) => l.type === "agent_end", `end of "${text}"`, from);
      }
      const state = await rpc.request({ type: "get_state" });
      const parentFile = (state.data as { sessionFile: string }).sessionFile;
      expect(parentFile).toMatch(/\.jsonl$/);
      const forkable = await rpc.request({ type: "get_fork_messages" });
      const entries = (forkable.data as { messages: Array<{ entryId: string; text: string }> }).messages;
      expect(entries.map((e) => e.text)).toEqual(["first topic", "second topic"]);

      const parentBefore = readFileSync(parentFile, "utf8");
      const forked = await rpc.request({ type: "fork", entryId: entries[0]!.entryId });
      expect(forked).toMatchObject({ success: true });
      const childFile = (forked.data as { sessionFile: string }).sessionFile;
      expect(childFile).toMatch(/\.jsonl$/);
      expect(childFile).not.toBe(parentFile);

      const from = rpc.lines.length;
      await rpc.request({ type: "prompt", message: "third topic" });
      await rpc.waitFor((l) => l.type === "agent_end", "end of third", from);

      // The model saw the fork's history: the first topic, not the second.
      const sent = JSON.stringify(server.requests.find((r) => lastUserText(r) === "third topic")!.messages);
      expect(sent).toContain("first topic");
      expect(sent).not.toContain("second topic");
      // The parent file did not change; the new turn went to the fork's file.
      expect(readFileSync(parentFile, "utf8")).toBe(parentBefore);
      const childText = readFileSync(childFile, "utf8");
      expect(childText).toContain("third topic");
      expect(childText).not.toContain("second topic");
      expect(statSync(childFile).size).toBeGreaterThan(0);
    } finally {
      expect(await rpc.close()).toBe(0);
    }
  });
});
