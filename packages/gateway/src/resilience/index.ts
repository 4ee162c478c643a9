export * from "./auth-profile-store.js";
export * from "./cooldown-policy.js";
export * from "./failover-error.js";
export * from "./failover-extension.js";
export * from "./failover-model-call.js";
export * from "./model-failover.js";
export * from "./thinking-fallback.js";
export * from "./types.js";
