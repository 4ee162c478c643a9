/** The tool set of a CLI session: the built-in coding tools filtered by `--tools` / `--no-tools`, plus extension tools. */
import type { AgentTool } from "@tiller/agent";
import type { CliArgs } from "./args.js";
import { CliUsageError } from "./errors.js";

// biome-ignore lint/suspicious/noExplicitAny: tools carry heterogeneous schemas.
type AnyTool = AgentTool<any>;

/** Each tool module is imported only when the tool is active (start-up time: grep/find pull in a file walker). */
const FACTORIES: Record<string, (cwd: string) => Promise<AnyTool>> = {
  read: async (cwd) => (await import("../tools/read.js")).createReadTool(cwd),
  bash: async (cwd) => (await import("../tools/bash.js")).createBashTool(cwd),
  edit: async (cwd) => (await import("../tools/edit.js")).createEditTool(cwd),
  write: async (cwd) => (await import("../tools/write.js")).createWriteTool(cwd),
  grep: async (cwd) => (await import("../tools/grep.js")).createGrepTool(cwd),
  find: async (cwd) => (await import("../tools/find.js")).createFindTool(cwd),
  ls: async (cwd) => (await import("../tools/ls.js")).createLsTool(cwd),
};

/** Active by default, as in pi: the four that cover reading, running and changing code. */
export const DEFAULT_TOOLS = ["read", "bash", "edit", "write"];
export const BUILTIN_TOOLS = Object.keys(FACTORIES);

export async function createTools(cwd: string, args: CliArgs, extensionTools: readonly AnyTool[]): Promise<AnyTool[]> {
  if (args.noTools) return [];
  const byName = new Map<string, AnyTool>();
  for (const t of extensionTools) byName.set(t.name, t);
  // `mcp__…` entries select MCP tools (see mcp-setup.ts); they are not built-in or extension tools.
  const wanted = (args.tools ?? [...DEFAULT_TOOLS, ...byName.keys()]).filter((n) => !n.startsWith("mcp__"));
  for (const name of wanted) {
    if (!byName.has(name) && !FACTORIES[name]) {
      const known = [...BUILTIN_TOOLS, ...byName.keys()].join(", ");
      throw new CliUsageError(`unknown tool "${name}" in --tools (known: ${known})`);
    }
  }
  return Promise.all(wanted.map((name) => byName.get(name) ?? FACTORIES[name]!(cwd)));
}
