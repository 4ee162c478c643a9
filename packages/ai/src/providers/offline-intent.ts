/**
 * Reads a plain request ("read README.md", "list src", "run `ls -la`", "find *.ts", "grep foo") and maps it to
 * a call of one of the tools on offer. Deliberately literal: a request it does not recognise gets no tool
 * call, so the offline model never guesses at what the user meant.
 */
import type { Tool } from "../types.js";

export interface OfflineToolIntent {
  tool: string;
  arguments: Record<string, unknown>;
}

type Intent =
  | { kind: "read"; path: string }
  | { kind: "ls"; path: string }
  | { kind: "find"; pattern: string; path?: string }
  | { kind: "grep"; pattern: string; path?: string }
  | { kind: "command"; command: string };

const POLITE = /^(?:(?:please|pls|kindly)\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?)+/i;
const TRAILING = /\s*(?:please|for me|thanks|thank you)?[\s.!?]*$/i;
/** Words after "run" that mean prose, not a command ("run the tests"). */
const NOT_A_COMMAND = new Set(["the", "a", "an", "my", "this", "that", "all", "some", "it", "them", "tests", "me"]);

/** "list files" names no directory: these words mean the current one. */
const LIST_NOUNS = new Set(["files", "contents", "directory", "folder", "everything", "all", "here"]);

function unquote(text: string): string {
  const t = text.trim();
  const m = /^(["'`])(.*)\1$/s.exec(t);
  return m ? (m[2] as string) : t;
}

/** Parses one request line; undefined when it is not a plain tool request. */
export function parseOfflineRequest(input: string): Intent | undefined {
  const text = input.trim().replace(POLITE, "").replace(TRAILING, "").trim();
  if (!text) return undefined;

  // Commands: "run `ls -la`", "execute `npm test`", "$ git status", "run: ls", "run npm test".
  const fenced = /^(?:run|execute|exec|sh|bash)\s*:?\s*(?:the\s+command\s+)?`{1,3}([^`]+)`{1,3}$/i.exec(text);
  if (fenced) return { kind: "command", command: (fenced[1] as string).trim() };
  const dollar = /^\$\s+(.+)$/s.exec(text);
  if (dollar) return { kind: "command", command: (dollar[1] as string).trim() };
  const bare = /^(?:run|execute|exec)\s*:?\s+(.+)$/i.exec(text);
  if (bare && !bare[1]?.includes("\n")) {
    const command = unquote(bare[1] as string);
    const first = command.split(/\s+/)[0]?.toLowerCase() ?? "";
    if (/^[\w./~-]+$/.test(first) && !NOT_A_COMMAND.has(first)) return { kind: "command", command };
  }

  const read =
    /^(?:read|cat|show|open|view|print|display)\s+(?:me\s+)?(?:the\s+)?(?:file\s+)?(\S+|"[^"]+"|'[^']+')$/i.exec(text);
  if (read) return { kind: "read", path: unquote(read[1] as string) };

  const ls =
    /^(?:ls|list|dir)(?:\s+(?:the\s+)?(?:files|contents|directory|folder)?\s*(?:of|in)?\s*(?:the\s+)?(?:directory\s+|folder\s+)?(\S+))?$/i.exec(
      text,
    );
  if (ls) {
    const path = ls[1] ? unquote(ls[1]) : ".";
    // "ls -la" is a shell command, not a directory named "-la".
    if (path.startsWith("-")) return { kind: "command", command: text };
    return { kind: "ls", path: LIST_NOUNS.has(path.toLowerCase()) ? "." : path };
  }

  const find =
    /^(?:find|locate)\s+(?:all\s+)?(?:files?\s+)?(?:named\s+|matching\s+|called\s+)?(\S+|"[^"]+"|'[^']+')(?:\s+(?:in|under)\s+(\S+))?$/i.exec(
      text,
    );
  if (find) {
    const path = find[2] ? unquote(find[2]) : undefined;
    return { kind: "find", pattern: unquote(find[1] as string), ...(path ? { path } : {}) };
  }

  const grep =
    /^(?:grep|search\s+for|search|look\s+for)\s+(\S+|"[^"]+"|'[^']+'|`[^`]+`)(?:\s+(?:in|under)\s+(\S+))?$/i.exec(text);
  if (grep) {
    const path = grep[2] ? unquote(grep[2]) : undefined;
    return { kind: "grep", pattern: unquote(grep[1] as string), ...(path ? { path } : {}) };
  }
  return undefined;
}

function propertyNames(tool: Tool): string[] {
  const props = (tool.parameters as { properties?: unknown }).properties;
  return props && typeof props === "object" ? Object.keys(props) : [];
}

/** The tool's own name for a parameter (e.g. `file_path` instead of `path`), falling back to `preferred[0]`. */
function param(tool: Tool, preferred: string[]): string {
  const names = propertyNames(tool);
  return preferred.find((p) => names.includes(p)) ?? (preferred[0] as string);
}

const PATH_KEYS = ["path", "file_path", "filePath", "file", "filename"];
const DIR_KEYS = ["path", "dir", "directory", "cwd"];
const COMMAND_KEYS = ["command", "cmd", "script"];

function shellQuote(s: string): string {
  return /^[\w./*?@%+=:,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** What a shell tool would run for an intent whose dedicated tool is missing. */
function asCommand(intent: Intent): string {
  switch (intent.kind) {
    case "command":
      return intent.command;
    case "read":
      return `cat ${shellQuote(intent.path)}`;
    case "ls":
      return `ls ${shellQuote(intent.path)}`;
    case "find":
      return `find ${shellQuote(intent.path ?? ".")} -name ${shellQuote(intent.pattern)}`;
    case "grep":
      return `grep -rn ${shellQuote(intent.pattern)} ${shellQuote(intent.path ?? ".")}`;
  }
}

/**
 * Maps `request` to a call of one of `tools`: the dedicated tool when present (read, ls, find, grep, bash or
 * exec), else the shell tool running the equivalent command. Undefined when nothing fits.
 */
export function matchOfflineTool(request: string, tools: readonly Tool[]): OfflineToolIntent | undefined {
  const intent = parseOfflineRequest(request);
  if (!intent) return undefined;
  const byName = (name: string) => tools.find((t) => t.name === name);
  const shell = byName("bash") ?? byName("exec") ?? byName("shell");

  const dedicated = intent.kind === "command" ? undefined : byName(intent.kind);
  if (dedicated) {
    switch (intent.kind) {
      case "read":
        return { tool: dedicated.name, arguments: { [param(dedicated, PATH_KEYS)]: intent.path } };
      case "ls":
        return { tool: dedicated.name, arguments: { [param(dedicated, DIR_KEYS)]: intent.path } };
      case "find":
      case "grep": {
        const args: Record<string, unknown> = { [param(dedicated, ["pattern", "query", "regex"])]: intent.pattern };
        if (intent.path) args[param(dedicated, DIR_KEYS)] = intent.path;
        return { tool: dedicated.name, arguments: args };
      }
    }
  }
  if (shell) return { tool: shell.name, arguments: { [param(shell, COMMAND_KEYS)]: asCommand(intent) } };
  return undefined;
}
