export * from "./context.js";
export * from "./ids.js";
export * from "./list.js";
export * from "./lock.js";
export * from "./messages.js";
export * from "./reader.js";
export * from "./session-manager.js";
export * from "./types.js";
