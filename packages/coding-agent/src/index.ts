export {};
export * from "./context/index.js";
export * from "./home.js";
export * from "./session/index.js";
export * from "./extensions/index.js";
