export {};
export * from "./context/index.js";
export * from "./extensions/index.js";
