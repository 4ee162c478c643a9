/**
 * Path resolution for the file tools, and the sandbox: with `sandbox` on, a path whose real location
 * (every symlink followed, even a dangling one at the end) lies outside the workspace root is refused.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

/** Thrown when a sandboxed tool is asked for a path outside its root. */
export class SandboxViolationError extends Error {
  constructor(
    readonly requested: string,
    readonly root: string,
  ) {
    super(`Path is outside the workspace: ${requested} (sandboxed to ${root})`);
    this.name = "SandboxViolationError";
  }
}

/** Expand `~`, strip an `@` mention prefix models sometimes add, and resolve against `cwd`. */
export function resolveToCwd(filePath: string, cwd: string): string {
  let p = filePath.trim();
  if (p.startsWith("@")) p = p.slice(1);
  if (p === "~") p = homedir();
  else if (p.startsWith("~/")) p = path.join(homedir(), p.slice(2));
  return path.resolve(cwd, p);
}

function isErrno(err: unknown, ...codes: string[]): boolean {
  return typeof err === "object" && err !== null && codes.includes((err as NodeJS.ErrnoException).code ?? "");
}

/**
 * The real location of `p`, following symlinks on existing components; missing trailing components are
 * appended as they are, and a dangling symlink is followed to where it would point.
 */
export function realLocation(p: string, hops = 0): string {
  if (hops > 40) throw new Error(`Too many levels of symbolic links: ${p}`);
  try {
    return realpathSync(p);
  } catch (err) {
    if (!isErrno(err, "ENOENT", "ENOTDIR")) throw err;
  }
  const parent = path.dirname(p);
  if (parent === p) return p;
  const realParent = realLocation(parent, hops + 1);
  const joined = path.join(realParent, path.basename(p));
  try {
    if (lstatSync(joined).isSymbolicLink()) {
      return realLocation(path.resolve(realParent, readlinkSync(joined)), hops + 1);
    }
  } catch (err) {
    if (!isErrno(err, "ENOENT", "ENOTDIR")) throw err;
  }
  return joined;
}

function isInside(child: string, root: string): boolean {
  const rel = path.relative(root, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

export interface PathGuardOptions {
  /** Refuse paths whose real location is outside `cwd`. */
  sandbox?: boolean;
}

/**
 * Resolve a tool's path argument. Returns the absolute path (symlinks not followed, so messages show what
 * the model asked for). Throws `SandboxViolationError` for escapes when sandboxed.
 */
export function resolveToolPath(filePath: string, cwd: string, options: PathGuardOptions = {}): string {
  if (typeof filePath !== "string" || filePath.trim() === "") throw new Error("Path must be a non-empty string");
  if (filePath.includes("\0")) throw new Error("Path contains a NUL byte");
  const abs = resolveToCwd(filePath, cwd);
  if (options.sandbox) {
    const root = realLocation(path.resolve(cwd));
    if (!isInside(abs, path.resolve(cwd)) && !isInside(abs, root)) throw new SandboxViolationError(filePath, cwd);
    if (!isInside(realLocation(abs), root)) throw new SandboxViolationError(filePath, cwd);
  }
  return abs;
}
