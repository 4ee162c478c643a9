export * from "./auth-storage.js";
export * from "./file-lock.js";
