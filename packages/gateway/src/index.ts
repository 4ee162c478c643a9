export {};
export * from "./resilience/index.js";
