/**
 * The coding tools of @tiller/coding-agent and the factories that bundle them.
 */
import type { AgentTool } from "@tiller/agent";
import { type BashToolOptions, createBashTool } from "./bash.js";
import { createEditTool, type EditToolOptions } from "./edit.js";
import { createExecTool, type ExecToolOptions } from "./exec.js";
import { createFindTool, type FindToolOptions } from "./find.js";
import { createGrepTool, type GrepToolOptions } from "./grep.js";
import { createLsTool, type LsToolOptions } from "./ls.js";
import { createProcessTool } from "./process.js";
import type { ProcessRegistry } from "./process-registry.js";
import { createReadTool, type ReadToolOptions } from "./read.js";
import { createWriteTool, type WriteToolOptions } from "./write.js";

export * from "./abort-wrap.js";
export * from "./bash.js";
export { unifiedDiff } from "./diff.js";
export * from "./edit.js";
export * from "./exec.js";
export * from "./file-mutex.js";
export * from "./find.js";
export { compileGlob, type GlobMatcher } from "./glob.js";
export * from "./grep.js";
export * from "./grep-search.js";
export { IgnoreMatcher, parseIgnore } from "./ignore.js";
export * from "./ls.js";
export * from "./path-guard.js";
export * from "./pipeline.js";
export * from "./process.js";
export * from "./process-registry.js";
export { killTree } from "./process-tree.js";
export * from "./read.js";
export { findRipgrep } from "./ripgrep.js";
export * from "./schema-normalize.js";
export * from "./shell-config.js";
export * from "./tool-definitions.js";
export * from "./truncate.js";
export { walkFiles } from "./walk.js";
export * from "./write.js";

/** pi's per-tool options bag (each tool's options, custom operations included). */
export interface ToolsOptions {
  read?: ReadToolOptions;
  bash?: BashToolOptions;
  write?: WriteToolOptions;
  edit?: EditToolOptions;
  grep?: GrepToolOptions;
  find?: FindToolOptions;
  ls?: LsToolOptions;
}

/** Options of the bundles: pi's per-tool options plus Tiller's sandbox, exec and process settings. */
export interface CodingToolsOptions extends ToolsOptions {
  /** Confine file tools (read, edit, write, grep, find, ls, exec workdir) to cwd. Bash is not confined. */
  sandbox?: boolean;
  /** False for text-only models: read returns a note instead of image blocks. */
  modelAcceptsImages?: boolean;
  exec?: Omit<ExecToolOptions, "sandbox" | "registry">;
  /** Registry shared by exec and process (default: the process-wide one). */
  processRegistry?: ProcessRegistry;
}

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas and details.
type AnyTool = AgentTool<any, any>;

/** Every tool by name. */
export function createAllTools(cwd: string, options: CodingToolsOptions = {}): Record<string, AnyTool> {
  const sandbox = options.sandbox;
  return {
    read: createReadTool(cwd, {
      ...options.read,
      sandbox: options.read?.sandbox ?? sandbox,
      modelAcceptsImages: options.read?.modelAcceptsImages ?? options.modelAcceptsImages,
    }),
    bash: createBashTool(cwd, options.bash),
    edit: createEditTool(cwd, { ...options.edit, sandbox: options.edit?.sandbox ?? sandbox }),
    write: createWriteTool(cwd, { ...options.write, sandbox: options.write?.sandbox ?? sandbox }),
    grep: createGrepTool(cwd, { ...options.grep, sandbox: options.grep?.sandbox ?? sandbox }),
    find: createFindTool(cwd, { ...options.find, sandbox: options.find?.sandbox ?? sandbox }),
    ls: createLsTool(cwd, { ...options.ls, sandbox: options.ls?.sandbox ?? sandbox }),
    exec: createExecTool(cwd, { ...options.exec, sandbox, registry: options.processRegistry }),
    process: createProcessTool({ registry: options.processRegistry }),
  };
}

/** pi's default set: read, bash, edit, write. */
export function createCodingTools(cwd: string, options: CodingToolsOptions = {}): AnyTool[] {
  const all = createAllTools(cwd, options);
  return [all.read!, all.bash!, all.edit!, all.write!];
}

/** Tools that cannot change anything: read, grep, find, ls. */
export function createReadOnlyTools(cwd: string, options: CodingToolsOptions = {}): AnyTool[] {
  const all = createAllTools(cwd, options);
  return [all.read!, all.grep!, all.find!, all.ls!];
}
