/**
 * The exec approvals policy of `$TILLER_HOME/exec-approvals.json`: security / ask / askFallback, an allowlist
 * every segment of a shell chain must match (resolved paths or bare names through PATH), and allow-always
 * written back atomically with mode 0600. A bad file is refused with errors that name the key.
 */
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalRequest } from "@tiller/agent";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ExecApprovals, ExecApprovalsError, type ExecApprovalsFile, splitShellChain } from "../src/approvals/index.js";

let root: string;
let bin: string;
let file: string;
let PATH: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tiller-exec-approvals-"));
  bin = join(root, "bin");
  mkdirSync(bin);
  for (const name of ["mytool", "other"]) {
    writeFileSync(join(bin, name), "#!/bin/sh\necho hi\n");
    chmodSync(join(bin, name), 0o755);
  }
  file = join(root, "home", "exec-approvals.json");
  mkdirSync(join(root, "home"));
  PATH = `${bin}:/usr/bin:/bin`;
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function policy(doc: ExecApprovalsFile): ExecApprovals {
  writeFileSync(file, JSON.stringify(doc), { mode: 0o600 });
  return ExecApprovals.load(file, { home: root });
}

// Built per test: PATH points at this test's bin folder.
let ask: { canAsk: boolean; PATH: string };
let noAsk: { canAsk: boolean; PATH: string };
beforeEach(() => {
  ask = { canAsk: true, PATH };
  noAsk = { canAsk: false, PATH };
});

describe("exec approvals file", () => {
  it("an absent file changes nothing: every command runs without asking", () => {
    const approvals = ExecApprovals.load(join(root, "none.json"));
    expect(approvals.policy).toMatchObject({ security: "full", ask: "off", askFallback: "deny" });
    expect(approvals.evaluate("rm -rf build", root, ask)).toBe(false);
  });

  it("a bad file is refused; each error names its key and what it got", () => {
    writeFileSync(
      file,
      JSON.stringify({
        security: "yes",
        ask: "sometimes",
        allowlist: [{ pattern: "bin/rg" }, { pattern: "" }],
        extra: 1,
      }),
    );
    let message = "";
    try {
      ExecApprovals.load(file);
    } catch (error) {
      expect(error).toBeInstanceOf(ExecApprovalsError);
      message = (error as Error).message;
    }
    expect(message).toContain(file);
    expect(message).toContain('security must be one of "deny", "allowlist", "full" (got "yes")');
    expect(message).toContain('ask must be one of "off", "on-miss", "always" (got "sometimes")');
    expect(message).toContain(
      'allowlist.0.pattern must be an absolute path glob (/… or ~/…) or a bare command name (got "bin/rg")',
    );
    expect(message).toMatch(/allowlist\.1\.pattern .*\(got ""\)/);
    expect(message).toContain("extra is not a known key");
    writeFileSync(file, "{ not json");
    expect(() => ExecApprovals.load(file)).toThrow(new RegExp(`${file}: .*JSON`));
  });

  it("warns when the file is readable by others", () => {
    writeFileSync(file, "{}", { mode: 0o644 });
    chmodSync(file, 0o644);
    expect(ExecApprovals.load(file).warnings.join("\n")).toMatch(/readable by other users; run: chmod 600/);
  });
});

describe("policy decisions", () => {
  it("security deny blocks every command", () => {
    const p = policy({ security: "deny" });
    expect(p.evaluate("ls", root, ask)).toEqual({ block: true, reason: expect.stringContaining("security: deny") });
  });

  it("allowlist: every segment of a chain (&&, ||, ;, |) must match", () => {
    const p = policy({
      security: "allowlist",
      ask: "off",
      allowlist: [{ pattern: `${bin}/*` }, { pattern: "/bin/echo" }],
    });
    expect(p.evaluate("mytool --x && /bin/echo hi | other; mytool || other", root, noAsk)).toBe(false);
    const blocked = p.evaluate("mytool && rm -rf /tmp/x", root, noAsk);
    expect(blocked).toMatchObject({ block: true });
    expect((blocked as { reason: string }).reason).toMatch(/not on the allowlist: \/(usr\/)?bin\/rm/);
    // Operators inside quotes are arguments, not chain separators.
    expect(p.evaluate("mytool \"a && rm -rf /\" '; rm'", root, noAsk)).toBe(false);
    expect(p.evaluate("FOO=1 mytool 2>&1", root, noAsk)).toBe(false);
  });

  it("what cannot be checked statically never matches: substitution, redirection to a file, subshells", () => {
    const p = policy({ security: "allowlist", ask: "off", allowlist: [{ pattern: `${bin}/*` }] });
    for (const command of [
      "mytool $(rm -rf x)",
      "mytool `id`",
      "mytool > out.txt",
      "(mytool)",
      "$TOOL x",
      'mytool "unterminated',
    ]) {
      expect(p.evaluate(command, root, noAsk), command).toMatchObject({ block: true });
    }
    expect(splitShellChain("a > b")).toEqual({ ok: false, reason: "a redirection" });
  });

  it("a bare-name pattern matches only commands found through PATH; a path pattern the resolved path", () => {
    const p = policy({ security: "allowlist", ask: "off", allowlist: [{ pattern: "mytool" }] });
    expect(p.evaluate("mytool", root, noAsk)).toBe(false);
    expect(p.evaluate("./mytool", bin, noAsk)).toMatchObject({ block: true });
    expect(p.evaluate(`${bin}/mytool`, root, noAsk)).toMatchObject({ block: true });
    const home = policy({ security: "allowlist", ask: "off", allowlist: [{ pattern: "~/bin/my*" }] });
    expect(home.evaluate(`${bin}/mytool`, root, noAsk)).toBe(false); // ~ is the home the policy was given
    expect(home.evaluate("mytool", root, noAsk)).toBe(false); // found through PATH at ~/bin/mytool
    expect(home.evaluate("other", root, noAsk)).toMatchObject({ block: true });
  });

  it("ask on-miss: a miss becomes an approval request showing the exact command and what allow-always would add", () => {
    const p = policy({ security: "allowlist", ask: "on-miss", allowlist: [{ pattern: "/bin/echo" }] });
    expect(p.evaluate("/bin/echo ok", root, ask)).toBe(false);
    const command = "mytool --flag 'two words' && /bin/echo done";
    const request = p.evaluate(command, root, ask) as ApprovalRequest;
    expect(request.title).toBe("Run this command?");
    expect(request.description).toBe(command);
    expect(request.alwaysKey).toBe(false);
    expect(request.meta).toEqual({ kind: "exec", command, cwd: root, persist: [`${bin}/mytool`, "/bin/echo"] });
    expect(request.timeoutMs).toBeUndefined();
  });

  it("ask always asks even for allowlisted commands; full + on-miss runs anything", () => {
    const always = policy({ security: "allowlist", ask: "always", allowlist: [{ pattern: "mytool" }] });
    expect(always.evaluate("mytool", root, ask)).toMatchObject({ title: "Run this command?" });
    const full = policy({ security: "full", ask: "on-miss" });
    expect(full.evaluate("anything-at-all", root, ask)).toBe(false);
  });

  it("nobody to ask: askFallback decides (deny blocks, allowlist runs only matches, full runs)", () => {
    const base = { security: "allowlist" as const, ask: "always" as const, allowlist: [{ pattern: "mytool" }] };
    expect(policy({ ...base }).evaluate("mytool", root, noAsk)).toMatchObject({
      block: true,
      reason: expect.stringContaining("nobody can be asked here (askFallback: deny)"),
    });
    const byList = policy({ ...base, askFallback: "allowlist" });
    expect(byList.evaluate("mytool", root, noAsk)).toBe(false);
    expect(byList.evaluate("other", root, noAsk)).toMatchObject({ block: true });
    expect(policy({ ...base, askFallback: "full" }).evaluate("other", root, noAsk)).toBe(false);
  });

  it("timeoutMs: the request times out as askFallback says", () => {
    const base = { security: "allowlist" as const, ask: "on-miss" as const, timeoutMs: 5000 };
    expect(policy({ ...base }).evaluate("mytool", root, ask)).toMatchObject({
      timeoutMs: 5000,
      timeoutBehavior: "deny",
    });
    expect(policy({ ...base, askFallback: "full" }).evaluate("mytool", root, ask)).toMatchObject({
      timeoutBehavior: "allow",
    });
  });
});

describe("allow-always", () => {
  it("adds the resolved executables to the file atomically (mode 0600), keeping other keys and edits made meanwhile", () => {
    const p = policy({
      security: "allowlist",
      ask: "on-miss",
      askFallback: "deny",
      allowlist: [{ pattern: "/bin/echo" }],
    });
    const request = p.evaluate("mytool && other", root, ask) as ApprovalRequest;
    // Someone edits the file while the request waits.
    const edited = JSON.parse(readFileSync(file, "utf8")) as ExecApprovalsFile;
    edited.allowlist!.push({ pattern: "/usr/bin/git" });
    writeFileSync(file, JSON.stringify(edited), { mode: 0o600 });

    const added = p.allowAlways((request.meta as { persist: string[] }).persist);
    expect(added).toEqual([`${bin}/mytool`, `${bin}/other`]);
    const saved = JSON.parse(readFileSync(file, "utf8")) as ExecApprovalsFile;
    expect(saved.security).toBe("allowlist");
    expect(saved.askFallback).toBe("deny");
    expect(saved.allowlist!.map((e) => e.pattern)).toEqual([
      "/bin/echo",
      "/usr/bin/git",
      `${bin}/mytool`,
      `${bin}/other`,
    ]);
    expect(saved.allowlist![2]).toMatchObject({ source: "allow-always", addedAt: expect.any(Number) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(root, "home"))).toEqual(["exec-approvals.json"]); // no temp file left
    // Now they match, in this process and for a fresh load.
    expect(p.evaluate("mytool && other", root, ask)).toBe(false);
    expect(ExecApprovals.load(file, { home: root }).evaluate("other", root, ask)).toBe(false);
    expect(p.allowAlways([`${bin}/mytool`])).toEqual([]);
  });

  it("a command that cannot be pinned to executables offers nothing to persist", () => {
    const p = policy({ security: "allowlist", ask: "on-miss" });
    expect((p.evaluate("mytool $(id)", root, ask) as ApprovalRequest).meta).toEqual({
      kind: "exec",
      command: "mytool $(id)",
      cwd: root,
    });
  });
});
