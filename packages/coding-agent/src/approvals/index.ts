export * from "./allowlist.js";
export * from "./exec-approvals.js";
export * from "./gate.js";
export * from "./schema.js";
export { executableWord, type ShellChain, type ShellWord, splitShellChain } from "./shell-chain.js";
