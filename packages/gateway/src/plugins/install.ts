/**
 * Installing a skill or plugin into $TILLER_HOME: a built-in scan lists risky patterns in the source (findings),
 * then the plugins' `before_install` hook sees them and may block the install (terminal; a later `block:false`
 * never clears it) or add findings of its own. Nothing is copied unless the install goes ahead.
 */
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import type { HookRunner } from "./hook-runner.js";

export interface InstallRequest {
  kind: "skill" | "plugin";
  /** A folder (skill: with SKILL.md) or, for plugins, a single .ts/.js/.mjs file. */
  source: string;
  home: string;
  /** Installed name (default: the source's base name). */
  name?: string;
  hooks?: HookRunner;
  /** Replace an existing install of the same name. */
  overwrite?: boolean;
}

export interface InstallResult {
  installed: boolean;
  /** Where it was (or would have been) installed. */
  path: string;
  findings: string[];
  blockedBy?: string;
  reason?: string;
}

const RISKS: { re: RegExp; what: string }[] = [
  { re: /\bchild_process\b/, what: "spawns processes (child_process)" },
  { re: /\beval\s*\(|\bnew\s+Function\s*\(/, what: "evaluates code at run time (eval / new Function)" },
  { re: /\brm\s+-rf\b/, what: "deletes recursively (rm -rf)" },
  { re: /\b(curl|wget)\b[^\n|]*\|\s*(ba|z)?sh\b/, what: "pipes a download into a shell" },
  { re: /\bprocess\.env\b[\s\S]{0,200}\bfetch\s*\(/, what: "reads environment variables and makes network requests" },
];
const SCANNED_EXTS = new Set([".ts", ".mts", ".js", ".mjs", ".cjs", ".sh", ".py", ".md"]);
const MAX_SCAN_BYTES = 1024 * 1024;

/** The built-in scan: one finding per risky pattern per file (`file: what`). */
export function scanSource(source: string): string[] {
  const findings: string[] = [];
  const visit = (path: string, rel: string, depth: number) => {
    const st = statSync(path);
    if (st.isDirectory()) {
      if (depth > 6) return;
      for (const name of readdirSync(path).sort()) {
        if (name === "node_modules" || name.startsWith(".")) continue;
        visit(join(path, name), rel ? `${rel}/${name}` : name, depth + 1);
      }
      return;
    }
    if (!SCANNED_EXTS.has(extname(path)) || st.size > MAX_SCAN_BYTES) return;
    const text = readFileSync(path, "utf8");
    for (const r of RISKS) if (r.re.test(text)) findings.push(`${rel || basename(path)}: ${r.what}`);
  };
  visit(source, "", 0);
  return findings;
}

export async function installExtension(req: InstallRequest): Promise<InstallResult> {
  if (!existsSync(req.source)) throw new Error(`install source not found: ${req.source}`);
  const isDir = statSync(req.source).isDirectory();
  if (req.kind === "skill" && (!isDir || !existsSync(join(req.source, "SKILL.md")))) {
    throw new Error(`a skill is a folder with a SKILL.md: ${req.source}`);
  }
  const name = req.name ?? (isDir ? basename(req.source) : basename(req.source));
  const path = join(req.home, req.kind === "skill" ? "skills" : "plugins", name);
  if (existsSync(path) && !req.overwrite) throw new Error(`${req.kind} "${name}" is already installed at ${path}`);
  let findings = scanSource(req.source);
  if (req.hooks?.hasHooks("before_install")) {
    const d = await req.hooks.runBeforeInstall({ kind: req.kind, name, source: req.source, findings });
    findings = [...findings, ...d.findings];
    if (d.block) return { installed: false, path, findings, blockedBy: d.blockedBy, reason: d.blockReason };
  }
  cpSync(req.source, path, { recursive: true, force: true });
  return { installed: true, path, findings };
}
