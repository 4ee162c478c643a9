export * from "./compact.js";
export * from "./cut-point.js";
export * from "./estimate.js";
export * from "./limit-history.js";
export * from "./pruning.js";
export * from "./serialize.js";
export * from "./summarize.js";
