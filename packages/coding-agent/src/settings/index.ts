export * from "./schema.js";
export * from "./settings-manager.js";
