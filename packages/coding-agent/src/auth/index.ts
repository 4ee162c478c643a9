export * from "./auth-backends.js";
export * from "./auth-storage.js";
export * from "./file-lock.js";
