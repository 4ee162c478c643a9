export {};
export * from "./context/index.js";
