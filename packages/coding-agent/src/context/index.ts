export * from "./context-files.js";
export * from "./frontmatter.js";
export * from "./prompt-templates.js";
export * from "./skills.js";
export * from "./system-prompt.js";
