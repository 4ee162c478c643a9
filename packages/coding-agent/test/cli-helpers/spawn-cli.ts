/** Spawns the real `tiller` CLI from source (no build needed) and collects its output. */
import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
export const CLI_SOURCE = join(REPO_ROOT, "packages", "coding-agent", "src", "cli.ts");
/** tsx's loader by absolute URL: the CLI often runs in a temp folder where a bare "tsx" would not resolve. */
const TSX_LOADER = pathToFileURL(join(REPO_ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
/** Node's arguments that run a TypeScript entry from source (e.g. an RpcClient's `nodeArgs`). */
export const SOURCE_NODE_ARGS = ["--conditions=tiller-source", "--import", TSX_LOADER];
/** Command line (argv[0..]) that runs the CLI from source. */
export const CLI_COMMAND = [process.execPath, ...SOURCE_NODE_ARGS, CLI_SOURCE];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface SpawnCliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  timeoutMs?: number;
}

export function runCli(args: string[], options: SpawnCliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLI_COMMAND[0]!, [...CLI_COMMAND.slice(1), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, ...options.env },
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d) => (stdout += d));
    child.stderr!.on("data", (d) => (stderr += d));
    if (options.input !== undefined) child.stdin!.end(options.input);
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`CLI timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
