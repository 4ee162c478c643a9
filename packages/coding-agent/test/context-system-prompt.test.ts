import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  buildSystemPrompt,
  expandPromptTemplate,
  loadContextFiles,
  loadPromptTemplates,
  loadSkills,
  parseCommandArgs,
  substituteArgs,
} from "../src/context/index.js";

let root: string;
let home: string;
let project: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tiller-ctx-"));
  home = join(root, "home");
  project = join(root, "repo", "pkg");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("context files", () => {
  it("collects AGENTS.md and CLAUDE.md from the folder and its parents, outermost first, global first", () => {
    writeFileSync(join(home, "AGENTS.md"), "global rule");
    writeFileSync(join(root, "repo", "CLAUDE.md"), "repo rule");
    writeFileSync(join(project, "AGENTS.md"), "package rule");
    const files = loadContextFiles({ cwd: project, tillerHome: home });
    expect(files.map((f) => f.content)).toEqual(["global rule", "repo rule", "package rule"]);
    expect(files[2]!.path).toBe(join(project, "AGENTS.md"));
  });

  it("prefers AGENTS.md over CLAUDE.md in the same folder", () => {
    writeFileSync(join(project, "AGENTS.md"), "agents");
    writeFileSync(join(project, "CLAUDE.md"), "claude");
    expect(loadContextFiles({ cwd: project, tillerHome: home }).map((f) => f.content)).toEqual(["agents"]);
  });
});

describe("system prompt", () => {
  it("contains tools, context files, skills, date and folder, then the appended text", () => {
    writeFileSync(join(project, "AGENTS.md"), "Always answer in haiku.");
    mkdirSync(join(project, ".tiller", "skills", "pdf-tools"), { recursive: true });
    writeFileSync(
      join(project, ".tiller", "skills", "pdf-tools", "SKILL.md"),
      "---\nname: pdf-tools\ndescription: Extract text & tables from PDF files.\n---\n# PDF\nRun scripts/x.sh",
    );
    const prompt = buildSystemPrompt({
      cwd: project,
      tools: [
        { name: "read", description: "Read a file. Long text." },
        { name: "bash", description: "Run a command." },
      ],
      contextFiles: loadContextFiles({ cwd: project, tillerHome: home }),
      skills: loadSkills({ cwd: project, tillerHome: home }).skills,
      appendSystemPrompt: "APPENDED-LAST",
      date: new Date("2026-01-02T00:00:00Z"),
    });
    expect(prompt).toContain("- read: Read a file.");
    expect(prompt).not.toContain("Long text.");
    expect(prompt).toContain("# Project Context");
    expect(prompt).toContain("Always answer in haiku.");
    expect(prompt).toContain("<name>pdf-tools</name>");
    expect(prompt).toContain("Extract text &amp; tables from PDF files.");
    expect(prompt).toContain(join(project, ".tiller", "skills", "pdf-tools", "SKILL.md"));
    // Skills are listed, not inlined: the body stays on disk until the model reads it.
    expect(prompt).not.toContain("Run scripts/x.sh");
    expect(prompt).toContain("Current date: 2026-01-02");
    expect(prompt).toContain(`Current working directory: ${project}`);
    expect(prompt.trimEnd().endsWith("APPENDED-LAST")).toBe(true);
  });

  it("--system-prompt replaces the base text but keeps the project context", () => {
    const prompt = buildSystemPrompt({
      cwd: project,
      tools: [{ name: "read", description: "Read." }],
      systemPrompt: "You are a pirate.",
      contextFiles: [{ path: "/x/AGENTS.md", content: "ctx" }],
    });
    expect(prompt.startsWith("You are a pirate.")).toBe(true);
    expect(prompt).not.toContain("Tiller, a terminal coding agent");
    expect(prompt).toContain("ctx");
  });

  it("says so when no tools are available", () => {
    expect(buildSystemPrompt({ cwd: project, tools: [] })).toContain("No tools are available");
  });
});

describe("prompt templates", () => {
  it("expands /name args from .tiller/prompts with $1 and $@, project overriding user", () => {
    mkdirSync(join(project, ".tiller", "prompts"), { recursive: true });
    mkdirSync(join(home, "prompts"), { recursive: true });
    writeFileSync(
      join(project, ".tiller", "prompts", "review.md"),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: `${@:2}` is the template syntax under test
      "---\ndescription: Review a file\n---\nReview $1 for $2. All: $@. Tail: ${@:2}",
    );
    writeFileSync(join(home, "prompts", "review.md"), "user version");
    writeFileSync(join(home, "prompts", "hello.md"), "Hello $ARGUMENTS!");
    const templates = loadPromptTemplates({ cwd: project, tillerHome: home });
    expect(templates.find((t) => t.name === "review")!.description).toBe("Review a file");
    expect(expandPromptTemplate('/review src/a.ts "race conditions" now', templates)).toBe(
      "Review src/a.ts for race conditions. All: src/a.ts race conditions now. Tail: race conditions now",
    );
    expect(expandPromptTemplate("/hello big world", templates)).toBe("Hello big world!");
    expect(expandPromptTemplate("/unknown x", templates)).toBeUndefined();
    expect(expandPromptTemplate("plain text", templates)).toBeUndefined();
  });

  it("parses quoted arguments and fills missing positions with nothing", () => {
    expect(parseCommandArgs(`a "b c" 'd e' ""`)).toEqual(["a", "b c", "d e", ""]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: `${@:1:2}` is the template syntax under test
    expect(substituteArgs("[$1][$3][${@:1:2}]", ["x", "y"])).toBe("[x][][x y]");
  });

  it("/skill:name inlines the skill's instructions and the user's words", () => {
    mkdirSync(join(home, "skills", "deploy"), { recursive: true });
    writeFileSync(
      join(home, "skills", "deploy", "SKILL.md"),
      "---\nname: deploy\ndescription: Deploys.\n---\nStep 1: ship",
    );
    const { skills } = loadSkills({ cwd: project, tillerHome: home });
    const out = expandPromptTemplate("/skill:deploy to staging", [], skills)!;
    expect(out).toContain("Step 1: ship");
    expect(out).toContain("User: to staging");
  });
});
