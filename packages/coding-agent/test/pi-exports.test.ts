/**
 * Drop-in check for @mariozechner/pi-coding-agent 0.73.1: every runtime export of pi's index exists in
 * @tiller/coding-agent with the same kind, except the terminal-UI names in `PENDING_TUI_EXPORTS`; every exported
 * type is either checked by pi-types.assign.ts (which tsc must accept, over the declarations of
 * public-declarations.ts) or listed with its reason in `PENDING_PI_TYPES`. Shrinking either list is progress; growing it needs a reason.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as pi from "@mariozechner/pi-coding-agent";
import * as tillerAgent from "@tiller/agent";
import * as tillerAi from "@tiller/ai";
import { describe, expect, it } from "vitest";
import * as tiller from "../src/index.js";
import { runPublicTypeCheck } from "./public-declarations.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..", "..");

/** pi's terminal-UI runtime exports: they come with the TUI issue, not with the SDK drop-in. */
export const PENDING_TUI_EXPORTS: readonly string[] = [];

/** pi types without a Tiller type that a pi-typed program could use in their place yet, and why. */
export const PENDING_PI_TYPES: Readonly<Record<string, string>> = {};

/** pi classes whose instances Tiller's do not yet match member for member, and why. */
export const PENDING_PI_CLASSES: Readonly<Record<string, string>> = {};

/** The classes a module exports. */
function classNames(module: Record<string, unknown>): string[] {
  return Object.keys(module).filter((n) => {
    const v = module[n];
    return typeof v === "function" && Function.prototype.toString.call(v).startsWith("class");
  });
}

/** Type names exported by pi's index (from its declaration file: types do not exist at runtime). */
function piTypeNames(): string[] {
  const dts = readFileSync(join(root, "node_modules/@mariozechner/pi-coding-agent/dist/index.d.ts"), "utf8");
  const names: string[] = [];
  for (const m of dts.matchAll(/export (type )?\{([^}]*)\}/g)) {
    for (const raw of (m[2] ?? "").split(",")) {
      const item = raw.trim();
      if (!item) continue;
      if (m[1]) names.push(item);
      else if (item.startsWith("type ")) names.push(item.slice(5).trim());
    }
  }
  return names;
}

describe("pi-coding-agent 0.73.1 exports", () => {
  it("has every non-UI runtime name of pi's index, each of the same kind", () => {
    const missing = Object.keys(pi).filter((n) => !(n in tiller) && !PENDING_TUI_EXPORTS.includes(n));
    expect(missing).toEqual([]);
    const kinds = (m: Record<string, unknown>) =>
      Object.fromEntries(
        Object.keys(pi)
          .filter((n) => !PENDING_TUI_EXPORTS.includes(n))
          .map((n) => [n, typeof m[n]]),
      );
    expect(kinds(tiller as Record<string, unknown>)).toEqual(kinds(pi as Record<string, unknown>));
  });

  it("lists only names pi exports and Tiller lacks as pending", () => {
    for (const n of PENDING_TUI_EXPORTS) {
      expect(n in pi, n).toBe(true);
      expect(n in tiller, `${n} exists now: remove it from PENDING_TUI_EXPORTS`).toBe(false);
    }
  });

  it("checks or lists every exported type, and tsc accepts the checks (test/pi-types.assign.ts)", () => {
    const checks = readFileSync(join(here, "pi-types.assign.ts"), "utf8");
    const checked = new Set([...checks.matchAll(/^ {2}(\w+): \(x: /gm)].map((m) => m[1]));
    const names = piTypeNames();
    expect(names.length).toBeGreaterThan(150);
    const unaccounted = names.filter((n) => !checked.has(n) && !(n in PENDING_PI_TYPES));
    expect(unaccounted).toEqual([]);
    const stale = Object.keys(PENDING_PI_TYPES).filter((n) => checked.has(n) || !names.includes(n));
    expect(stale).toEqual([]);
    const piClasses = Object.keys(pi).filter(
      (n) =>
        /^[A-Z]/.test(n) &&
        typeof (pi as Record<string, unknown>)[n] === "function" &&
        !PENDING_TUI_EXPORTS.includes(n),
    );
    expect(piClasses.filter((n) => !checked.has(n) && !(n in PENDING_PI_CLASSES))).toEqual([]);
    expect(Object.keys(PENDING_PI_CLASSES).filter((n) => checked.has(n) || !piClasses.includes(n))).toEqual([]);
    // Against both sides' declarations without private members (public-declarations.ts says why).
    const res = runPublicTypeCheck(root, join(here, "pi-types.assign.ts"), {
      ai: classNames(tillerAi),
      agent: classNames(tillerAgent),
      "coding-agent": classNames(tiller),
    });
    expect(res.output).toBe("");
    expect(res.status).toBe(0);
    // Emitting Tiller's declarations, then tsc over both packages': slow on a loaded machine.
  }, 240_000);
});
