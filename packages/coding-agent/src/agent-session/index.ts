export * from "./agent-session.js";
export * from "./create-agent-session.js";
export * from "./events.js";
export * from "./session-stats.js";
export * from "./tree-navigation.js";
