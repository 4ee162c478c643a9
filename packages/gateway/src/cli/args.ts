/** A tiny `--flag value` / `--flag=value` / `--switch` parser for the gateway's two executables. */
export interface ParsedArgs {
  positional: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: readonly string[], switches: readonly string[]): ParsedArgs {
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
      if (eq > 0) {
        flags.set(a.slice(2, eq), a.slice(eq + 1));
        continue;
      }
      const name = a.slice(2);
      if (switches.includes(name)) {
        flags.set(name, true);
        continue;
      }
      const value = argv[i + 1];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      flags.set(name, value);
      i++;
      continue;
    }
    if (a === "-h") {
      flags.set("help", true);
      continue;
    }
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
  if (!/^\d+$/.test(v)) throw new Error(`--${name} expects a whole number, got "${v}"`);
  return Number(v);
}

/** ws://127.0.0.1:<port> from --url, $TILLER_GATEWAY_URL, or the configured port. */
export function gatewayUrl(args: ParsedArgs, configuredPort: number): string {
  return str(args, "url") ?? process.env.TILLER_GATEWAY_URL ?? `ws://127.0.0.1:${configuredPort}`;
}
