/**
 * A tiny `--flag value` / `--flag=value` / `--switch` parser for the gateway's two executables. Like the
 * `tiller` CLI it refuses what it does not know: an unknown flag is a UsageError (exit 2, naming the flag), so a
 * mistyped `--prot 1` or an unsupported `--host 0.0.0.0` never starts a gateway on the defaults.
 */
export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

/** Bad command-line input: the caller prints the message and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** The flags a command takes: switches (no value) and flags with a value. `help` is always known. */
export interface FlagSpec {
  switches: readonly string[];
  values: readonly string[];
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const switches = [...spec.switches, "help"];
  const known = (name: string): boolean => switches.includes(name) || spec.values.includes(name);
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (!known(name)) throw new UsageError(`unknown option --${name}`);
      if (eq > 0) {
        if (switches.includes(name)) throw new UsageError(`--${name} takes no value`);
        flags.set(name, a.slice(eq + 1));
        continue;
      }
      if (switches.includes(name)) {
        flags.set(name, true);
        continue;
      }
      const value = argv[i + 1];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      i++;
      continue;
    }
    if (a === "-h") {
      flags.set("help", true);
      continue;
    }
    if (a.startsWith("-") && a.length > 1) throw new UsageError(`unknown option ${a}`);
    positional.push(a);
  }
  return { positional, flags };
}

export function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function int(args: ParsedArgs, name: string): number | undefined {
  const v = str(args, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} expects a whole number, got "${v}"`);
  return Number(v);
}

/** ws://127.0.0.1:<port> from --url, $TILLER_GATEWAY_URL, or the configured port. */
export function gatewayUrl(args: ParsedArgs, configuredPort: number): string {
  return str(args, "url") ?? process.env.TILLER_GATEWAY_URL ?? `ws://127.0.0.1:${configuredPort}`;
}
