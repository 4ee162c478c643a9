export * from "./agent-session.js";
export * from "./create-agent-session.js";
export * from "./events.js";
