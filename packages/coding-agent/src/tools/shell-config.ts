/** pi's `getShellConfig`: which shell runs commands, and the arguments that precede the command text. */
import { existsSync } from "node:fs";
import { defaultShell } from "./process-tree.js";

export interface ShellConfig {
  shell: string;
  args: string[];
}

/** `customShellPath` when given (it must exist), else bash when installed, else sh; always `-c <command>`. */
export function getShellConfig(customShellPath?: string): ShellConfig {
  if (customShellPath) {
    if (!existsSync(customShellPath)) throw new Error(`Custom shell path not found: ${customShellPath}`);
    return { shell: customShellPath, args: ["-c"] };
  }
  return { shell: defaultShell(), args: ["-c"] };
}
