/**
 * pi's `before_agent_start` fields `systemPromptOptions` and `images`: a handler learns what the system prompt
 * was built from (the folder, `--system-prompt`, active tools, context files, skills) without looking again, and
 * sees the prompt's images.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadExtensions } from "../src/extensions/loader.js";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { runCli } from "./cli-helpers/spawn-cli.js";

describe("before_agent_start systemPromptOptions", () => {
  let fx: CliFixture;
  let ext: string;
  beforeAll(() => {
    fx = makeFixture(undefined, "tiller-bas-sources-");
    writeFileSync(join(fx.project, "AGENTS.md"), "Project rules.");
    mkdirSync(join(fx.project, ".tiller", "skills", "ship-it"), { recursive: true });
    writeFileSync(
      join(fx.project, ".tiller", "skills", "ship-it", "SKILL.md"),
      "---\nname: ship-it\ndescription: ships it\n---\nShip.\n",
    );
    ext = join(fx.project, "sources.ts");
    writeFileSync(
      ext,
      `export default function (api) {
  api.on("before_agent_start", (e) => {
    const o = e.systemPromptOptions;
    process.stderr.write("sources: " + JSON.stringify({
      prompt: e.prompt,
      cwdOk: o.cwd === process.cwd(),
      customPrompt: o.customPrompt,
      hasRead: (o.selectedTools ?? []).includes("read"),
      contextFiles: (o.contextFiles ?? []).map((f) => f.content),
      skills: (o.skills ?? []).map((s) => s.name),
    }) + "\\n");
  });
}\n`,
    );
  });
  afterAll(() => fx.cleanup());

  it("tells the CLI's handlers what the system prompt was built from", async () => {
    const r = await runCli(["-p", "--no-session", "-e", ext, "--system-prompt", "Be brief.", "hello"], {
      cwd: fx.project,
      env: fx.env,
    });
    expect(r.code).toBe(0);
    const line = r.stderr.split("\n").find((l) => l.startsWith("sources: "));
    expect(line, r.stderr).toBeDefined();
    const seen = JSON.parse((line as string).slice("sources: ".length));
    expect(seen).toMatchObject({ prompt: "hello", cwdOk: true, customPrompt: "Be brief.", hasRead: true });
    expect(seen.contextFiles).toContain("Project rules.");
    expect(seen.skills).toContain("ship-it");
  });

  it("hands the prompt's images and the sources to every handler", async () => {
    const seen: unknown[] = [];
    const runner = await loadExtensions({
      cwd: process.cwd(),
      paths: [],
      noDiscovery: true,
      factories: [
        {
          name: "a",
          factory: (api) =>
            api.on("before_agent_start", (e) => {
              seen.push({ images: e.images?.length, tools: e.systemPromptOptions.selectedTools });
              return { systemPrompt: `${e.systemPrompt}!` };
            }),
        },
      ],
    });
    const image = { type: "image" as const, data: "aGk=", mimeType: "image/png" };
    const r = await runner.emitBeforeAgentStart("hi", [image], "base", { cwd: "/p", selectedTools: ["read"] });
    expect(r).toEqual({ systemPrompt: "base!" });
    expect(seen).toEqual([{ images: 1, tools: ["read"] }]);
  });
});
