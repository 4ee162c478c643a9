import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionManager } from "../src/index.js";

const here = dirname(fileURLToPath(import.meta.url));
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tiller-crash-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("crash safety", () => {
  it("a process killed right after a completed turn loses nothing, and its lock is reclaimed", async () => {
    const child = spawn(
      process.execPath,
      ["--conditions=tiller-source", "--import", "tsx", join(here, "session-crash-child.ts"), dir],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    const file = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d.toString();
        const m = /done (\S+)\n/.exec(out);
        if (m) resolve(m[1] as string);
      });
      child.on("exit", (code) => reject(new Error(`child exited ${code}`)));
    });
    const exited = new Promise((r) => child.on("exit", r));
    child.kill("SIGKILL");
    await exited;
    expect(existsSync(`${file}.lock`)).toBe(true);

    const sm = SessionManager.open(file);
    const messages = sm.buildSessionContext().messages;
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const answer = messages[1];
    expect(answer?.role === "assistant" && answer.content[0]).toMatchObject({ text: "the answer" });
    expect(sm.getWarnings()).toEqual([]);
    sm.close();
  }, 20_000);
});
