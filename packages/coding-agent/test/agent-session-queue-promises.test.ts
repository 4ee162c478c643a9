/**
 * `steer`, `followUp` and `setModel` return promises as pi's do: the change is in effect when the call returns
 * (callers that do not await keep working), the promise settles after the async listeners saw it, and a failing
 * listener never turns it into a rejection nobody handles.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerFauxProvider } from "@tiller/ai";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { AuthStorage, createAgentSession, ModelRegistry, SettingsManager } from "../src/index.js";

let home: string;
let faux: ReturnType<typeof registerFauxProvider>;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "tiller-queue-promises-"));
  faux = registerFauxProvider({ models: [{ id: "one" }, { id: "two" }] });
});
afterEach(() => {
  faux.unregister();
  rmSync(home, { recursive: true, force: true });
});

async function open() {
  const { session } = await createAgentSession({
    cwd: "/proj",
    home,
    model: faux.getModel("one"),
    settingsManager: SettingsManager.inMemory(),
    modelRegistry: ModelRegistry.inMemory(AuthStorage.inMemory()),
  });
  return session;
}

describe("AgentSession steer/followUp/setModel promises", () => {
  it("apply at once and resolve after the async listeners", async () => {
    const session = await open();
    const seen: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // model_changed is a Tiller event: only listeners that ask get it.
    session.subscribe(
      async (e) => {
        if (e.type !== "queue_update" && e.type !== "model_changed") return;
        await gate;
        seen.push(e.type === "queue_update" ? `queue:${e.steering.join(",")}|${e.followUp.join(",")}` : "model");
      },
      { tillerEvents: true },
    );
    const steered = session.steer("left");
    const followed = session.followUp("then");
    const switched = session.setModel(faux.getModel("two") as never);
    expect(steered).toBeInstanceOf(Promise);
    // In effect before any promise settles: the queue and the model already changed.
    expect(session.pendingMessageCount).toBe(2);
    expect(session.model.id).toBe("two");
    let settled = false;
    void Promise.all([steered, followed, switched]).then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    release();
    await Promise.all([steered, followed, switched]);
    expect(seen).toEqual(["queue:left|", "queue:left|then", "model"]);
    session.dispose();
  });

  it("never reject: a failing listener is logged", async () => {
    const session = await open();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      session.subscribe(async () => {
        throw new Error("listener broke");
      });
      await expect(session.steer("x")).resolves.toBeUndefined();
      await expect(session.setModel(faux.getModel("two") as never)).resolves.toBeUndefined();
      expect(logged.mock.calls.some((c) => String(c[1]).includes("listener broke"))).toBe(true);
    } finally {
      logged.mockRestore();
      session.dispose();
    }
  });
});
