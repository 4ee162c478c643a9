/**
 * Command-line parsing for `tiller`, hand-written so that start-up loads nothing else.
 * Errors are returned, not thrown: the caller prints them and exits with code 2.
 */

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type CliThinkingLevel = (typeof THINKING_LEVELS)[number];
export const MODES = ["text", "json", "rpc"] as const;
export type CliMode = (typeof MODES)[number];

/** Parsed command line. Fields left undefined mean "use settings / defaults". */
export interface CliArgs {
  /** `-p` / `--print`: answer once, print the final text, exit. */
  print: boolean;
  mode?: CliMode;
  model?: string;
  provider?: string;
  apiKey?: string;
  thinking?: CliThinkingLevel;
  /** `-c` / `--continue`: reopen the most recent session of this folder. */
  continue: boolean;
  /** `-r` / `--resume`: pick a session to reopen (interactive). */
  resume: boolean;
  /** `--session <path|id>`: open this session. */
  session?: string;
  noSession: boolean;
  /** `--tools a,b`: allowlist of tool names. */
  tools?: string[];
  noTools: boolean;
  /** `--trust-mcp`: trust the project's MCP servers (.mcp.json, .tiller/settings.json) and remember it. */
  trustMcp?: boolean;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  extensions: string[];
  /** `--list-models [search]`: `true` without a search term. */
  listModels?: true | string;
  version: boolean;
  help: boolean;
  /** Positional words, joined into the first prompt. */
  messages: string[];
  /** Long options the CLI does not know: extensions' flags, checked once the extensions are loaded. */
  extensionFlags: ExtensionFlagArg[];
}

/**
 * `--name`, `--name=value` or `--name value` (pi's rule: the next word is taken when it starts with neither `-`
 * nor `@`). When the flag turns out to be boolean, the word taken (`next`) goes back among the messages at `at`.
 */
export interface ExtensionFlagArg {
  name: string;
  value?: string;
  next?: { text: string; at: number };
}

export type ParseResult = { ok: true; args: CliArgs } | { ok: false; error: string };

type ValueFlag =
  | "mode"
  | "model"
  | "provider"
  | "apiKey"
  | "thinking"
  | "session"
  | "tools"
  | "systemPrompt"
  | "appendSystemPrompt"
  | "extension";

const VALUE_FLAGS: Record<string, ValueFlag> = {
  "--mode": "mode",
  "--model": "model",
  "-m": "model",
  "--provider": "provider",
  "--api-key": "apiKey",
  "--thinking": "thinking",
  "--session": "session",
  "--tools": "tools",
  "--system-prompt": "systemPrompt",
  "--append-system-prompt": "appendSystemPrompt",
  "--extension": "extension",
  "-e": "extension",
};

const BOOL_FLAGS: Record<
  string,
  "print" | "continue" | "resume" | "noSession" | "noTools" | "trustMcp" | "version" | "help"
> = {
  "-p": "print",
  "--print": "print",
  "-c": "continue",
  "--continue": "continue",
  "-r": "resume",
  "--resume": "resume",
  "--no-session": "noSession",
  "--no-tools": "noTools",
  "--trust-mcp": "trustMcp",
  "-v": "version",
  "--version": "version",
  "-h": "help",
  "--help": "help",
};

export function parseArgs(argv: readonly string[]): ParseResult {
  const args: CliArgs = {
    print: false,
    continue: false,
    resume: false,
    noSession: false,
    noTools: false,
    extensions: [],
    version: false,
    help: false,
    messages: [],
    extensionFlags: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (raw === "--") {
      args.messages.push(...argv.slice(i + 1));
      break;
    }
    if (!raw.startsWith("-") || raw === "-") {
      args.messages.push(raw);
      continue;
    }
    const eq = raw.startsWith("--") ? raw.indexOf("=") : -1;
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const inline = eq > 0 ? raw.slice(eq + 1) : undefined;
    const bool = BOOL_FLAGS[flag];
    if (bool) {
      if (inline !== undefined) return { ok: false, error: `${flag} takes no value` };
      args[bool] = true;
      continue;
    }
    if (flag === "--list-models") {
      const next = inline ?? (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith("-") ? argv[++i] : undefined);
      args.listModels = next === undefined ? true : next;
      continue;
    }
    const key = VALUE_FLAGS[flag];
    if (!key && flag.startsWith("--") && flag.length > 2) {
      const next = argv[i + 1];
      const name = flag.slice(2);
      if (inline !== undefined) args.extensionFlags.push({ name, value: inline });
      else if (next !== undefined && !next.startsWith("-") && !next.startsWith("@")) {
        args.extensionFlags.push({ name, next: { text: next, at: args.messages.length } });
        i++;
      } else args.extensionFlags.push({ name });
      continue;
    }
    if (!key) return { ok: false, error: `unknown option ${flag}` };
    let value = inline;
    if (value === undefined) {
      if (i + 1 >= argv.length) return { ok: false, error: `${flag} needs a value` };
      value = argv[++i]!;
    }
    const err = assign(args, key, flag, value);
    if (err) return { ok: false, error: err };
  }
  return validate(args);
}

function assign(args: CliArgs, key: ValueFlag, flag: string, value: string): string | undefined {
  switch (key) {
    case "mode":
      if (!(MODES as readonly string[]).includes(value)) {
        return `${flag} must be one of ${MODES.join(", ")} (got "${value}")`;
      }
      args.mode = value as CliMode;
      return undefined;
    case "thinking":
      if (!(THINKING_LEVELS as readonly string[]).includes(value)) {
        return `${flag} must be one of ${THINKING_LEVELS.join(", ")} (got "${value}")`;
      }
      args.thinking = value as CliThinkingLevel;
      return undefined;
    case "tools": {
      const names = value
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (names.length === 0) return `${flag} needs a comma-separated list of tool names (or use --no-tools)`;
      args.tools = names;
      return undefined;
    }
    case "extension":
      if (!value) return `${flag} needs a path`;
      args.extensions.push(value);
      return undefined;
    default:
      if (value === "") return `${flag} needs a non-empty value`;
      args[key] = value;
      return undefined;
  }
}

function validate(args: CliArgs): ParseResult {
  const sessionFlags = [args.continue && "--continue", args.resume && "--resume", args.session && "--session"].filter(
    Boolean,
  );
  if (sessionFlags.length > 1) return { ok: false, error: `${sessionFlags.join(" and ")} cannot be combined` };
  if (args.noSession && sessionFlags.length > 0) {
    return { ok: false, error: `--no-session cannot be combined with ${sessionFlags[0]}` };
  }
  if (args.noTools && args.tools) return { ok: false, error: "--tools and --no-tools cannot be combined" };
  if (args.print && args.mode === "rpc") return { ok: false, error: "--print cannot be combined with --mode rpc" };
  if (args.mode === "rpc" && args.messages.length > 0) {
    return { ok: false, error: "--mode rpc reads commands from stdin; it takes no prompt arguments" };
  }
  if (args.resume && (args.print || args.mode)) {
    return { ok: false, error: "--resume opens the session picker of the interactive UI; use --session <id|path>" };
  }
  return { ok: true, args };
}
