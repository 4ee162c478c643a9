/** The tool set of a CLI session: the built-in coding tools filtered by `--tools` / `--no-tools`, plus extension tools. */
import type { AgentTool } from "@tiller/agent";
import { createBashTool } from "../tools/bash.js";
import { createEditTool } from "../tools/edit.js";
import { createFindTool } from "../tools/find.js";
import { createGrepTool } from "../tools/grep.js";
import { createLsTool } from "../tools/ls.js";
import { createReadTool } from "../tools/read.js";
import { createWriteTool } from "../tools/write.js";
import type { CliArgs } from "./args.js";
import { CliUsageError } from "./errors.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
type AnyTool = AgentTool<any>;

const FACTORIES: Record<string, (cwd: string) => AnyTool> = {
  read: (cwd) => createReadTool(cwd),
  bash: (cwd) => createBashTool(cwd),
  edit: (cwd) => createEditTool(cwd),
  write: (cwd) => createWriteTool(cwd),
  grep: (cwd) => createGrepTool(cwd),
  find: (cwd) => createFindTool(cwd),
  ls: (cwd) => createLsTool(cwd),
};

/** Active by default, as in pi: the four that cover reading, running and changing code. */
export const DEFAULT_TOOLS = ["read", "bash", "edit", "write"];
export const BUILTIN_TOOLS = Object.keys(FACTORIES);

export function createTools(cwd: string, args: CliArgs, extensionTools: readonly AnyTool[]): AnyTool[] {
  if (args.noTools) return [];
  const byName = new Map<string, AnyTool>();
  for (const t of extensionTools) byName.set(t.name, t);
  const wanted = args.tools ?? [...DEFAULT_TOOLS, ...byName.keys()];
  const out: AnyTool[] = [];
  for (const name of wanted) {
    const ext = byName.get(name);
    if (ext) out.push(ext);
    else if (FACTORIES[name]) out.push(FACTORIES[name]!(cwd));
    else {
      const known = [...BUILTIN_TOOLS, ...byName.keys()].join(", ");
      throw new CliUsageError(`unknown tool "${name}" in --tools (known: ${known})`);
    }
  }
  return out;
}
