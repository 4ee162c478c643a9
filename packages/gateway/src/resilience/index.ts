export * from "./auth-profile-store.js";
export * from "./cooldown-policy.js";
export * from "./failover-error.js";
export * from "./model-failover.js";
export * from "./thinking-fallback.js";
export * from "./types.js";
