import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentToolResult } from "@tiller/agent";

/** A fresh temp dir (real path), removed by the returned cleanup. */
export function tempDir(prefix = "tiller-tools-"): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The text blocks of a result, joined. */
export function textOf(result: AgentToolResult<unknown>): string {
  return result.content
    .filter((c): c is { type: "text"; text: string } => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}
