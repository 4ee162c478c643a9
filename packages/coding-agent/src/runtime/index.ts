export * from "./agent-session-runtime.js";
export * from "./agent-session-services.js";
export * from "./resource-loader.js";
