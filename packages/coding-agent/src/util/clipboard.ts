/**
 * pi's `copyToClipboard`: the platform's clipboard tool (pbcopy, clip, wl-copy, xclip, xsel), and the OSC 52
 * terminal sequence when no tool worked or the session is remote (the local terminal owns the clipboard then).
 */
import { spawn } from "node:child_process";

const OSC52_MAX_BASE64 = 100_000;

function run(command: string, args: string[], text: string): Promise<boolean> {
  return new Promise((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, { stdio: ["pipe", "ignore", "ignore"] });
    } catch {
      resolve(false);
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.on("error", () => {
      clearTimeout(timer);
      resolve(false);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve(code === 0);
    });
    child.stdin?.on("error", () => {});
    child.stdin?.end(text);
  });
}

function tools(env: NodeJS.ProcessEnv): Array<[string, string[]]> {
  if (process.platform === "darwin") return [["pbcopy", []]];
  if (process.platform === "win32") return [["clip", []]];
  const list: Array<[string, string[]]> = [];
  if (env.WAYLAND_DISPLAY) list.push(["wl-copy", []]);
  list.push(["xclip", ["-selection", "clipboard"]], ["xsel", ["--clipboard", "--input"]]);
  return list;
}

/** Copies `text`; throws when neither a clipboard tool nor OSC 52 (terminal output) could carry it. */
export async function copyToClipboard(text: string): Promise<void> {
  const env = process.env;
  let copied = false;
  for (const [command, args] of tools(env)) {
    if (await run(command, args, text)) {
      copied = true;
      break;
    }
  }
  const remote = Boolean(env.SSH_CONNECTION || env.SSH_CLIENT || env.MOSH_CONNECTION);
  if (copied && !remote) return;
  const encoded = Buffer.from(text).toString("base64");
  if (encoded.length <= OSC52_MAX_BASE64 && process.stdout.isTTY) {
    process.stdout.write(`\x1b]52;c;${encoded}\x07`);
    return;
  }
  if (!copied)
    throw new Error("no clipboard available (install wl-copy, xclip or xsel, or use a terminal with OSC 52)");
}
