export { type Static, type TSchema, Type } from "@sinclair/typebox";
export * from "./env-api-keys.js";
export * from "./event-stream.js";
export * from "./models.js";
export * from "./types.js";
export * from "./validation.js";
