/**
 * Extension flags on the command line (pi's `--<flag>`): a long option the CLI does not know waits until the
 * extensions are loaded; a registered flag's value reaches `getFlag`, a boolean flag gives the word it took back
 * to the prompt, and an option no extension registers is a usage error naming it (exit 2).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as Pi from "@mariozechner/pi-coding-agent";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseArgs } from "../src/cli/args.js";
import { CliUsageError } from "../src/cli/errors.js";
import { applyExtensionFlags } from "../src/cli/extension-flags.js";
import { loadExtensions } from "../src/extensions/loader.js";
import { createAgentSessionServices } from "../src/index.js";
import { type CliFixture, makeFixture } from "./cli-helpers/fixture.js";
import { runCli } from "./cli-helpers/spawn-cli.js";

async function runnerWithFlags() {
  return loadExtensions({
    cwd: process.cwd(),
    paths: [],
    noDiscovery: true,
    factories: [
      {
        name: "flags",
        factory: (api) => {
          api.registerFlag("plan", { type: "boolean", description: "plan first" });
          api.registerFlag("verbose", { type: "boolean" });
          api.registerFlag("level", { type: "string" });
        },
      },
    ],
  });
}

function parsed(argv: string[]) {
  const r = parseArgs(argv);
  if (!r.ok) throw new Error(r.error);
  return r.args;
}

describe("extension flags", () => {
  it("sets registered flags; a boolean flag's following word stays in the prompt", async () => {
    const runner = await runnerWithFlags();
    const args = parsed(["-p", "--plan", "--level", "3", "fix", "--verbose", "the", "bug"]);
    applyExtensionFlags(args, runner);
    expect(Object.fromEntries(runner.getFlagValues())).toEqual({ plan: true, level: "3", verbose: true });
    expect(args.messages).toEqual(["fix", "the", "bug"]);

    const off = await runnerWithFlags();
    applyExtensionFlags(parsed(["--plan=false", "--level=x y"]), off);
    expect(Object.fromEntries(off.getFlagValues())).toEqual({ plan: false, level: "x y" });
  });

  it("refuses options no extension registers, and a string flag without its value", async () => {
    const runner = await runnerWithFlags();
    expect(() => applyExtensionFlags(parsed(["--plan", "--nope", "--other=1"]), runner)).toThrow(
      new CliUsageError(
        'unknown options --nope, --other (no extension registers them). Run "tiller --help" for usage.',
      ),
    );
    expect(() => applyExtensionFlags(parsed(["--level"]), runner)).toThrow("--level needs a value");
    // Nothing was set by the refused command lines.
    expect(runner.getFlagValues().size).toBe(0);
  });
});

describe("tiller executable with an extension flag", () => {
  let fx: CliFixture;
  let ext: string;
  beforeAll(() => {
    fx = makeFixture(undefined, "tiller-ext-flags-");
    ext = join(fx.project, "flag-ext.ts");
    writeFileSync(
      ext,
      `export default function (api) {
  api.registerFlag("tone", { type: "string", description: "answer tone" });
  api.registerFlag("loud", { type: "boolean" });
  api.on("session_start", () => process.stderr.write("flags: tone=" + api.getFlag("tone") + " loud=" + api.getFlag("loud") + "\\n"));
  api.on("input", (e) => { process.stderr.write("prompt: " + e.text + "\\n"); });
}\n`,
    );
  });
  afterAll(() => fx.cleanup());

  it("passes --<flag> values to the extension and keeps the prompt; an unknown one exits 2", async () => {
    const [ok, bad] = await Promise.all([
      runCli(["-p", "--no-session", "-e", ext, "--tone", "dry", "--loud", "hello", "there"], {
        cwd: fx.project,
        env: fx.env,
      }),
      runCli(["-p", "--no-session", "-e", ext, "--tune", "dry", "hello"], { cwd: fx.project, env: fx.env }),
    ]);
    expect(ok.stderr).toContain("flags: tone=dry loud=true");
    expect(ok.code).toBe(0);
    // "hello" was not eaten by the boolean --loud: the prompt is whole.
    expect(ok.stderr).toContain("prompt: hello there\n");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("tiller: unknown option --tune (no extension registers it)");
  });
});

describe("createAgentSessionServices extensionFlagValues", () => {
  it("sets registered flags and reports the others as pi does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tiller-flag-values-"));
    try {
      const agentDir = join(dir, "agent");
      mkdirSync(join(agentDir, "extensions"), { recursive: true });
      writeFileSync(
        join(agentDir, "extensions", "flags.ts"),
        `export default function (api) {
  api.registerFlag("plan", { type: "boolean" });
  api.registerFlag("level", { type: "string" });
  api.registerFlag("name", { type: "string" });
}\n`,
      );
      const values = new Map<string, boolean | string>([
        ["plan", "yes"],
        ["level", "3"],
        ["name", true],
        ["nope", "x"],
      ]);
      const seen = async (make: typeof createAgentSessionServices) => {
        const services = await make({ cwd: dir, agentDir, extensionFlagValues: values });
        const flags = services.resourceLoader.getExtensions().runtime.flagValues;
        return {
          flags: Object.fromEntries(flags),
          errors: services.diagnostics.filter((d) => d.type === "error").map((d) => d.message),
        };
      };
      const ours = await seen(createAgentSessionServices);
      const pi = await seen(Pi.createAgentSessionServices as unknown as typeof createAgentSessionServices);
      expect(ours).toEqual({
        flags: { plan: true, level: "3" },
        errors: ['Extension flag "--name" requires a value', "Unknown option: --nope"],
      });
      expect(pi).toEqual(ours);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
