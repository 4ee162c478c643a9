import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseArgs } from "../src/cli/args.js";
import { findSubcommand, runSubcommand } from "../src/cli/subcommands.js";
import { runCli } from "./cli-helpers/spawn-cli.js";

describe("argument parsing", () => {
  it("reads flags, values, --flag=value and the prompt words", () => {
    const r = parseArgs([
      "-p",
      "--model",
      "gpt-x",
      "--provider=openai",
      "--thinking",
      "high",
      "--tools",
      "read, bash",
      "-e",
      "a.ts",
      "--extension",
      "b.ts",
      "--append-system-prompt",
      "extra",
      "fix",
      "the bug",
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.args).toMatchObject({
      print: true,
      model: "gpt-x",
      provider: "openai",
      thinking: "high",
      tools: ["read", "bash"],
      extensions: ["a.ts", "b.ts"],
      appendSystemPrompt: "extra",
      messages: ["fix", "the bug"],
    });
  });

  it("takes words after -- literally", () => {
    const r = parseArgs(["-p", "--", "--not-a-flag"]);
    expect(r.ok && r.args.messages).toEqual(["--not-a-flag"]);
  });

  it("--list-models takes an optional search term", () => {
    expect(parseArgs(["--list-models"])).toMatchObject({ ok: true, args: { listModels: true } });
    expect(parseArgs(["--list-models", "gpt"])).toMatchObject({ ok: true, args: { listModels: "gpt" } });
  });

  it.each([
    [["-x"], "unknown option -x"],
    [["--model"], "--model needs a value"],
    [["--thinking", "extreme"], '--thinking must be one of off, minimal, low, medium, high, xhigh (got "extreme")'],
    [["--mode", "xml"], "--mode must be one of text, json, rpc"],
    [["--continue", "--session", "x"], "--continue and --session cannot be combined"],
    [["--no-session", "-c"], "--no-session cannot be combined with --continue"],
    [["--tools", "read", "--no-tools"], "--tools and --no-tools cannot be combined"],
    [["--mode", "rpc", "hello"], "--mode rpc reads commands from stdin"],
    [["--print=yes"], "--print takes no value"],
  ])("rejects %j", (argv, message) => {
    const r = parseArgs(argv);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toContain(message);
  });
});

describe("tiller executable", () => {
  it("exits 2 with a clear message on an unknown flag or a bad value", async () => {
    // An unknown long option may be an extension's flag: it is refused once the extensions are loaded.
    const [unknown, bad] = await Promise.all([
      runCli(["-p", "--bogus", "hi"]),
      runCli(["-p", "--thinking", "lots", "hi"]),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("tiller: unknown option --bogus");
    expect(unknown.stderr).toContain("tiller --help");
    expect(unknown.stdout).toBe("");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--thinking must be one of");
  });

  it("--version prints the package version and --help the usage", async () => {
    const [v, h] = await Promise.all([runCli(["--version"]), runCli(["--help"])]);
    expect(v.code).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("Usage:");
    expect(h.stdout).toContain("--mode text|json|rpc");
  });
});

describe("external subcommands", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "tiller-sub-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function fakeExe(path: string, body: string) {
    writeFileSync(path, `#!/bin/sh\n${body}\n`);
    chmodSync(path, 0o755);
  }

  it("finds tiller-<name> in node_modules/.bin above the package before PATH", () => {
    const pkg = join(dir, "proj", "node_modules", "@tiller", "coding-agent");
    mkdirSync(pkg, { recursive: true });
    mkdirSync(join(dir, "proj", "node_modules", ".bin"), { recursive: true });
    mkdirSync(join(dir, "path-bin"));
    fakeExe(join(dir, "proj", "node_modules", ".bin", "tiller-gateway"), "exit 0");
    fakeExe(join(dir, "path-bin", "tiller-gateway"), "exit 0");
    fakeExe(join(dir, "path-bin", "tiller-agent"), "exit 0");
    expect(findSubcommand("gateway", pkg, join(dir, "path-bin"))).toBe(
      join(dir, "proj", "node_modules", ".bin", "tiller-gateway"),
    );
    expect(findSubcommand("agent", pkg, join(dir, "path-bin"))).toBe(join(dir, "path-bin", "tiller-agent"));
    expect(findSubcommand("agent", pkg, join(dir, "nothing-here"))).toBeUndefined();
  });

  it("passes the arguments through and returns the program's exit code", async () => {
    const out = join(dir, "args.txt");
    fakeExe(join(dir, "echoer"), `printf '%s|' "$@" > ${out}; exit 7`);
    const code = await runSubcommand(join(dir, "echoer"), ["serve", "--port", "0", "a b"]);
    expect(code).toBe(7);
    const { readFileSync } = await import("node:fs");
    expect(readFileSync(out, "utf8")).toBe("serve|--port|0|a b|");
  });
});
