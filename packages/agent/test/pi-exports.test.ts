/**
 * Drop-in check for @mariozechner/pi-agent-core 0.73.1: every runtime export of pi's index exists in
 * @tiller/agent with the same kind (function or class), and every exported type passes the assignability
 * checks in pi-types.assign.ts (tsc on that file alone must report nothing).
 */
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as pi from "@mariozechner/pi-agent-core";
import * as tiller from "@tiller/agent";
import { describe, expect, it } from "vitest";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");

describe("pi-agent-core 0.73.1 exports", () => {
  it("has every runtime name of pi's index, each of the same kind", () => {
    const missing = Object.keys(pi).filter((name) => !(name in tiller));
    expect(missing).toEqual([]);
    const kinds = (m: Record<string, unknown>) =>
      Object.fromEntries(Object.keys(pi).map((name) => [name, typeof m[name]]));
    expect(kinds(tiller as Record<string, unknown>)).toEqual(kinds(pi as Record<string, unknown>));
  });

  it("accepts pi's exported types in place of its own (tsc on test/pi-types.assign.ts)", () => {
    const res = spawnSync(
      process.execPath,
      [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(here, "tsconfig.pi-types.json")],
      { cwd: root, encoding: "utf8" },
    );
    expect(`${res.stdout}${res.stderr}`).toBe("");
    expect(res.status).toBe(0);
  });
});
