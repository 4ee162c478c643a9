/**
 * The declarations pi-types.assign.ts is checked against: pi's packages and Tiller's, each class without its
 * private and protected members.
 *
 * Why: TypeScript compares a class with private or protected members nominally: only instances of that very
 * declaration are assignable to it, whatever their public members. A program ported from pi by changing its
 * imports holds Tiller's instances only, and no program can name another class's private members, so what it
 * relies on is the public surface. Comparing pi's declarations with Tiller's as they are would fail on every type
 * that mentions a class (pi's ModelRegistry in every extension context) for a reason no program meets; with the
 * private and protected members removed on both sides, tsc compares what a program can use, with everything else
 * TypeScript checks (overloads, generics, method bivariance) unchanged.
 *
 * The check sees pi as a ported program does: `@mariozechner/<package>`'s classes that Tiller exports under the
 * same name are Tiller's (the program constructs Tiller's after changing its imports), so the checks of the types
 * that mention them (options, results, contexts) compare everything else. Each class is compared once, by its own
 * check, against pi's declaration of it: `pi-declared/<package>` exports those (their members' types in the same
 * ported view: a member typed as another class is that class's own check).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const TILLER_PACKAGES = ["ai", "agent", "coding-agent"];
/** pi's packages, each with the Tiller package that takes its place (pi-tui: none, Tiller uses it as it is). */
const PI_PACKAGES: Record<string, string | undefined> = {
  "pi-coding-agent": "coding-agent",
  "pi-ai": "ai",
  "pi-agent-core": "agent",
  "pi-tui": undefined,
};

/** The classes a Tiller package exports, by package (`ai`, `agent`, `coding-agent`): the ones that replace pi's. */
export type TillerClasses = Record<string, readonly string[]>;

/**
 * `text` (a declaration file as tsc emits it) without the private and protected class members; constructors are
 * kept. tsc writes a private member as one line without its type (`private name;`, `#private;`); a protected one
 * keeps its type, which may span lines: it ends at the first `;` outside brackets.
 */
export function withoutPrivateMembers(text: string): string {
  const out: string[] = [];
  let depth = -1;
  for (const line of text.split("\n")) {
    if (depth < 0 && /^\s*(?:(?:private|protected)\b(?!\s+constructor\b)|#private;)/.test(line)) depth = 0;
    if (depth < 0) {
      out.push(line);
      continue;
    }
    // Arrows aside, `<>` in a declaration are type-argument brackets.
    for (const c of line.replaceAll("=>", "")) {
      if ("({[<".includes(c)) depth++;
      else if (")}]>".includes(c)) depth--;
    }
    if (depth <= 0 && /;\s*$/.test(line)) depth = -1;
  }
  return out.join("\n");
}

/** The name pi's own declaration of class `X` keeps in the ported view. */
const declaredName = (name: string) => `PiDeclared__${name}`;

/**
 * `text` with each non-generic `export declare class X` of `classes` replaced by Tiller's class `X` from
 * `tillerPackage` (a type and a value of the same name, as the class was); pi's declaration stays, renamed
 * (`declaredName`). Returns the text and the classes replaced.
 */
export function withTillerClasses(
  text: string,
  classes: ReadonlySet<string>,
  tillerPackage: string,
): { text: string; replaced: string[] } {
  const replaced: string[] = [];
  const out = text.split("\n").map((line) => {
    const m = /^export declare class (\w+)(?=[ {])/.exec(line);
    const name = m?.[1];
    if (!name || !classes.has(name)) return line;
    replaced.push(name);
    return [
      `import type { ${name} as Tiller${name}__ } from "${tillerPackage}";`,
      `import { ${name} as TillerValue${name}__ } from "${tillerPackage}";`,
      `export type ${name} = Tiller${name}__;`,
      `export declare const ${name}: typeof TillerValue${name}__;`,
      line.replace(`class ${name}`, `class ${declaredName(name)}`),
    ].join("\n");
  });
  return { text: out.join("\n"), replaced };
}

/** Copies the declaration files under `from` to `to`, each through `edit` (which is told the file's path). */
function copyDeclarations(from: string, to: string, edit: (text: string, file: string) => string): void {
  for (const name of readdirSync(from)) {
    const src = join(from, name);
    if (statSync(src).isDirectory()) copyDeclarations(src, join(to, name), edit);
    else if (name.endsWith(".d.ts")) {
      mkdirSync(to, { recursive: true });
      writeFileSync(join(to, name), edit(readFileSync(src, "utf8"), join(to, name)));
    }
  }
}

/**
 * Writes the public declarations under `out` (Tiller's emitted from its sources now, so they are never stale) and
 * a tsconfig that checks `file` against them; returns its path. Throws with tsc's output when Tiller's
 * declarations cannot be emitted.
 */
export function preparePublicTypeCheck(root: string, file: string, out: string, tillerClasses: TillerClasses): string {
  rmSync(out, { recursive: true, force: true });
  const paths: Record<string, string[]> = {};
  for (const [pkg, tillerPkg] of Object.entries(PI_PACKAGES)) {
    const dir = join(root, "node_modules", "@mariozechner", pkg);
    const classes = new Set(tillerPkg ? tillerClasses[tillerPkg] : []);
    const declared: string[] = [];
    const dist = join(out, "pi", pkg, "dist");
    copyDeclarations(join(dir, "dist"), dist, (text, file) => {
      const ported = withTillerClasses(withoutPrivateMembers(text), classes, `@tiller/${tillerPkg}`);
      const from = `./${file.slice(dist.length + 1).replace(/\.d\.ts$/, ".js")}`;
      for (const name of ported.replaced) declared.push(`export { ${declaredName(name)} as ${name} } from "${from}";`);
      return ported.text;
    });
    writeFileSync(join(dist, "pi-declared-classes.d.ts"), `${declared.join("\n")}\n`);
    paths[`pi-declared/${pkg}`] = [join(dist, "pi-declared-classes.d.ts")];
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      types?: string;
      exports?: Record<string, string | { types?: string }>;
    };
    for (const [sub, target] of Object.entries(manifest.exports ?? { ".": manifest.types ?? "" })) {
      const types = typeof target === "string" ? target : target.types;
      if (!types?.endsWith(".d.ts")) continue;
      const spec = sub === "." ? pkg : `${pkg}/${sub.slice(2)}`;
      paths[`@mariozechner/${spec}`] = [join(out, "pi", pkg, types)];
    }
  }
  const emitted = join(out, "emitted");
  const declConfig = join(out, "tsconfig.declarations.json");
  writeFileSync(
    declConfig,
    JSON.stringify({
      extends: join(root, "tsconfig.base.json"),
      compilerOptions: {
        customConditions: ["tiller-source"],
        declaration: true,
        emitDeclarationOnly: true,
        noEmit: false,
        outDir: emitted,
        rootDir: join(root, "packages"),
      },
      // Every source file, not only the entry points: files tsc reaches through node_modules (the workspace
      // links) are library files, which it does not emit.
      include: TILLER_PACKAGES.map((p) => join(root, "packages", p, "src", "**", "*.ts")),
    }),
  );
  const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
  const res = spawnSync(process.execPath, [tsc, "-p", declConfig], { cwd: root, encoding: "utf8" });
  if (res.status !== 0) throw new Error(`emitting Tiller's declarations failed:\n${res.stdout}${res.stderr}`);
  for (const pkg of TILLER_PACKAGES) {
    copyDeclarations(join(emitted, pkg, "src"), join(out, "tiller", pkg), withoutPrivateMembers);
    paths[`@tiller/${pkg}`] = [join(out, "tiller", pkg, "index.d.ts")];
  }
  const config = join(out, "tsconfig.check.json");
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(root, "tsconfig.base.json"),
      compilerOptions: { noEmit: true, paths },
      files: [file],
    }),
  );
  return config;
}

/** `tsc -p` of the check's config: its output ("" when the check passes) and exit status. */
export function runPublicTypeCheck(
  root: string,
  file: string,
  tillerClasses: TillerClasses,
): { output: string; status: number | null } {
  // Inside the repository (bare imports such as typebox resolve from its node_modules), one folder per run.
  const out = join(root, "node_modules", ".cache", `pi-public-types-${process.pid}`);
  try {
    const config = preparePublicTypeCheck(root, file, out, tillerClasses);
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const res = spawnSync(process.execPath, [tsc, "-p", config], { cwd: dirname(config), encoding: "utf8" });
    return { output: `${res.stdout}${res.stderr}`, status: res.status };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
