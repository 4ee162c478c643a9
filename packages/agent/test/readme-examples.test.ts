/**
 * Runs every complete program in packages/agent/README.md (a ```ts block starting with `import`) as written, in
 * its own Node process, and checks what it prints.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const readme = readFileSync(join(packageDir, "README.md"), "utf8");

interface Example {
  code: string;
  /** The ```text block right after the program, when the README shows its output. */
  output?: string;
}

function examples(): Example[] {
  const out: Example[] = [];
  const fence = /```(\w+)\n([\s\S]*?)```/g;
  let previous: Example | undefined;
  let lastEnd = 0;
  for (let m = fence.exec(readme); m; m = fence.exec(readme)) {
    const [, lang, body] = m as unknown as [string, string, string];
    if (lang === "ts" && body.startsWith("import")) {
      previous = { code: body };
      out.push(previous);
    } else if (lang === "text" && previous && /Its output:\s*$/.test(readme.slice(lastEnd, m.index))) {
      previous.output = body;
    }
    lastEnd = m.index + m[0].length;
  }
  return out;
}

// Under node_modules: ignored by git, biome and tsc even if a killed run leaves it behind; @tiller/* still resolve.
const cacheDir = join(packageDir, "node_modules", ".cache");
mkdirSync(cacheDir, { recursive: true });
const dir = mkdtempSync(join(cacheDir, "readme-run-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  stdout: string;
  error?: string;
}

/**
 * Runs the programs one after another in a single Node process (one tsx start-up instead of one per example),
 * capturing what each prints. Each program is awaited to the end of its top-level await.
 */
const RUNNER = `
import { pathToFileURL } from "node:url";
const outcomes = [];
const write = process.stdout.write.bind(process.stdout);
for (const file of process.argv.slice(2)) {
  let stdout = "";
  process.stdout.write = (chunk) => { stdout += String(chunk); return true; };
  let error;
  try { await import(pathToFileURL(file).href); } catch (e) { error = String(e && e.stack || e); }
  process.stdout.write = write;
  outcomes.push({ stdout, error });
}
write(JSON.stringify(outcomes));
`;

function runAll(codes: string[]): Promise<Outcome[]> {
  const files = codes.map((code, i) => {
    const file = join(dir, `example-${i}.mts`);
    writeFileSync(file, code);
    return file;
  });
  const runner = join(dir, "runner.mjs");
  writeFileSync(runner, RUNNER);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=tiller-source", "--import", "tsx", runner, ...files], {
      cwd: packageDir,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 100_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`runner exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as Outcome[]);
    });
  });
}

/** What each program must print, keyed by a line of its source. */
const expectations: [string, (stdout: string) => void][] = [
  [
    'faux.setResponses([fauxAssistantMessage("Hello! How can I help?")]);',
    (out) => {
      expect(out).toContain("Hello! How can I help?\n[2 new messages]");
      expect(out).toContain("user → assistant");
    },
  ],
  [
    'agent.setToolExecution("parallel");',
    (out) => {
      expect(out.split("\n").slice(0, 4)).toEqual([
        "finished: fast.txt",
        "finished: slow.txt",
        "finished: slow.txt",
        "finished: fast.txt",
      ]);
      expect(out).toContain("result order: slow.txt, fast.txt, slow.txt, fast.txt");
    },
  ],
  [
    "// 2. Result desensitization",
    (out) => {
      expect(out).toContain("error: Operation blocked for security");
      expect(out).toContain("ok: config.ini: user=admin password=***");
      expect(out).toContain('audit: read_file {"path":"../../config.ini"}');
    },
  ],
  [
    "setTimeout(() => agent.abort(), 50);",
    (out) => {
      expect(out).toContain("assistant aborted Request was aborted");
      expect(out.trim().split("\n").at(-1)).toBe("assistant stop");
    },
  ],
  [
    "interface CustomAgentMessages",
    (out) => {
      expect(out).toContain("[note] User prefers short answers");
      expect(out).toContain("transcript roles: note, user, assistant");
    },
  ],
];

describe("README examples run as written", () => {
  const all = examples();
  const outcomes = runAll(all.map((ex) => ex.code));

  it("finds the README's programs", () => {
    expect(all.length).toBeGreaterThanOrEqual(6);
  });

  all.forEach((ex, i) => {
    const title = ex.code
      .split("\n")
      .find((l) => /setToolExecution|steer\(|abort\(|declare module|subscribe|beforeToolCall/.test(l));
    it(`example ${i + 1} (${title?.trim() ?? "program"}) runs and prints what the README says`, {
      timeout: 120_000,
    }, async () => {
      const r = (await outcomes)[i]!;
      expect(r.error).toBeUndefined();
      if (ex.output !== undefined) expect(r.stdout).toBe(ex.output);
      const expectation = expectations.find(([marker]) => ex.code.includes(marker));
      if (ex.output === undefined) expect(expectation, "every program has a check").toBeDefined();
      expectation?.[1](r.stdout);
    });
  });
});
