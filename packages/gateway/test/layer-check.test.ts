import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, test } from "vitest";

const script = join(import.meta.dirname, "..", "..", "..", "scripts", "check-layers.mjs");
let dir = "";
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function repoWith(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "tiller-layers-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test("a lower layer importing a higher one fails the layer check", () => {
  const root = repoWith({ "packages/ai/src/x.ts": 'import { Agent } from "@tiller/agent";\n' });
  const res = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
  expect(res.status).toBe(1);
  expect(res.stderr).toContain("packages/ai/src/x.ts:1: @tiller/ai imports @tiller/agent");
});

test("dynamic imports of a higher layer are caught too", () => {
  const root = repoWith({ "packages/agent/test/y.test.ts": 'await import("@tiller/gateway");\n' });
  const res = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
  expect(res.status).toBe(1);
  expect(res.stderr).toContain("@tiller/agent imports @tiller/gateway");
});

test("imports of lower layers pass", () => {
  const root = repoWith({
    "packages/gateway/src/x.ts": 'import { a } from "@tiller/ai";\nimport { b } from "@tiller/coding-agent";\n',
  });
  const res = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
  expect(res.status).toBe(0);
});
