export * from "./model-registry.js";
export * from "./models-json.js";
