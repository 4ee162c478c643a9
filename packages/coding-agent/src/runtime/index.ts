export * from "./agent-session-runtime.js";
export * from "./agent-session-services.js";
export * from "./modes.js";
export * from "./package-manager.js";
export * from "./resource-loader.js";
export * from "./rpc-client.js";
