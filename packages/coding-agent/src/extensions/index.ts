export * from "./context.js";
export * from "./discover.js";
export * from "./extension-runtime.js";
export * from "./loader.js";
export * from "./runner.js";
export * from "./tool-definition.js";
export * from "./types.js";
export * from "./ui-context.js";
