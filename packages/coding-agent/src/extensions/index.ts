export * from "./loader.js";
export * from "./runner.js";
export * from "./types.js";
