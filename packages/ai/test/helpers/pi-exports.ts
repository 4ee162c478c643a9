/**
 * Shared checks that a Tiller package is a drop-in for a pi package: which runtime names pi exports that
 * Tiller lacks, which types pi's declaration files export (so a type-level test can be checked for
 * completeness), and running the repo's `tsc` on such a test. Used by each package's `pi-exports.test.ts`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");

/** Runtime names `pi` exports that `tiller` does not, minus `pending` (work known to be in progress). */
export function missingRuntimeExports(
  pi: Record<string, unknown>,
  tiller: Record<string, unknown>,
  pending: readonly string[] = [],
): string[] {
  return Object.keys(pi)
    .filter((name) => !(name in tiller) && !pending.includes(name))
    .sort();
}

const TYPE_DECL =
  /^export\s+(?:declare\s+)?(?:interface|type|class|abstract\s+class|enum|const\s+enum)\s+([A-Za-z_$][\w$]*)/gm;
const STAR = /^export\s+\*\s+from\s+["']([^"']+)["']/gm;
const NAMED = /^export\s+(type\s+)?\{([^}]*)\}\s+from\s+["']([^"']+)["']/gm;

function resolveDts(fromFile: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined; // another package: its names are listed, not followed
  const base = resolve(dirname(fromFile), specifier).replace(/\.js$/, "");
  for (const candidate of [`${base}.d.ts`, join(base, "index.d.ts")]) if (existsSync(candidate)) return candidate;
  return undefined;
}

/** Names declared in `file` as types (interface, type alias, class, enum). */
function declaredTypes(file: string): Set<string> {
  return new Set([...readFileSync(file, "utf8").matchAll(TYPE_DECL)].map((m) => m[1] as string));
}

/**
 * Every type name a declaration file exports: its own interfaces, type aliases, classes and enums, names in
 * `export type { … } from`, names in `export { … } from` that the target file declares as types, and the
 * same for every `export * from` it follows (relative paths only).
 */
export function exportedTypeNames(indexDts: string, seen = new Set<string>()): Set<string> {
  const names = new Set<string>();
  if (seen.has(indexDts)) return names;
  seen.add(indexDts);
  const text = readFileSync(indexDts, "utf8");
  for (const name of declaredTypes(indexDts)) names.add(name);
  for (const m of text.matchAll(STAR)) {
    const target = resolveDts(indexDts, m[1] as string);
    if (target) for (const name of exportedTypeNames(target, seen)) names.add(name);
  }
  for (const m of text.matchAll(NAMED)) {
    const typeOnly = Boolean(m[1]);
    const target = resolveDts(indexDts, m[3] as string);
    const targetTypes = target ? exportedTypeNames(target, new Set()) : new Set<string>();
    for (const raw of (m[2] as string).split(",")) {
      const part = raw.trim();
      if (!part) continue;
      const isType = typeOnly || part.startsWith("type ");
      const [original, alias] = part.replace(/^type\s+/, "").split(/\s+as\s+/) as [string, string | undefined];
      if (isType || targetTypes.has(original)) names.add(alias ?? original);
    }
  }
  return names;
}

/** The `.d.ts` entry point of an installed package (its `types` / `exports["."].types`). */
export function packageTypesEntry(packageName: string): string {
  // Hoisted by npm workspaces; read directly because pi's `exports` do not expose package.json.
  const pkgJson = join(REPO_ROOT, "node_modules", packageName, "package.json");
  const pkg = JSON.parse(readFileSync(pkgJson, "utf8")) as {
    types?: string;
    exports?: Record<string, { types?: string } | string>;
  };
  const dot = pkg.exports?.["."];
  const types = (typeof dot === "object" ? dot.types : undefined) ?? pkg.types ?? "index.d.ts";
  return join(dirname(pkgJson), types);
}

/** Type names `exportedTypeNames(pi)` lists that `assignFile` never mentions as `Pi.<Name>`. */
export function typesMissingFromAssignFile(piTypes: Iterable<string>, assignFile: string): string[] {
  const text = readFileSync(assignFile, "utf8");
  return [...piTypes].filter((name) => !new RegExp(`\\bPi\\.${name}\\b`).test(text)).sort();
}

/** Runs the repo's TypeScript on `tsconfig`; returns the exit status and the compiler's output. */
export function runTsc(tsconfig: string): { status: number | null; output: string } {
  const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  const r = spawnSync(process.execPath, [tsc, "--noEmit", "-p", tsconfig], { cwd: REPO_ROOT, encoding: "utf8" });
  return { status: r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}
