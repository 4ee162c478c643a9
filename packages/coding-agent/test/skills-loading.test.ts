import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadSkills } from "../src/context/skills.js";

let root: string;
let home: string;
let project: string;

function skill(dir: string, name: string, text: string) {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "SKILL.md"), text);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tiller-skills-"));
  home = join(root, "home");
  project = join(root, "project");
  mkdirSync(join(home, "skills"), { recursive: true });
  mkdirSync(join(project, ".tiller", "skills"), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("skills", () => {
  it("loads user and project skills with name and description from frontmatter", () => {
    skill(join(home, "skills"), "web-search", "---\nname: web-search\ndescription: Search the web.\n---\nbody");
    skill(join(project, ".tiller", "skills"), "db", '---\nname: db\ndescription: "Query: the database"\n---\n');
    const { skills, diagnostics } = loadSkills({ cwd: project, tillerHome: home });
    expect(diagnostics).toEqual([]);
    expect(skills.map((s) => [s.name, s.description, s.source])).toEqual([
      ["db", "Query: the database", "project"],
      ["web-search", "Search the web.", "user"],
    ]);
  });

  it("reports invalid skills without failing and keeps the valid ones", () => {
    skill(join(home, "skills"), "ok", "---\nname: ok\ndescription: fine\n---\n");
    skill(join(home, "skills"), "no-desc", "---\nname: no-desc\n---\n");
    skill(join(home, "skills"), "bad", "---\nname: Bad_Name\ndescription: x\n---\n");
    skill(join(home, "skills"), "open", "---\nname: open\ndescription: x\n");
    const { skills, diagnostics } = loadSkills({ cwd: project, tillerHome: home });
    expect(skills.map((s) => s.name)).toEqual(["ok"]);
    const messages = diagnostics.map((d) => `${d.severity}:${d.message}`).join("\n");
    expect(messages).toContain("missing `description`");
    expect(messages).toContain('invalid skill name "Bad_Name"');
    expect(messages).toContain("never closed");
    expect(diagnostics.every((d) => d.severity === "error")).toBe(true);
  });

  it("keeps the project skill on a name clash and warns", () => {
    skill(join(home, "skills"), "lint", "---\nname: lint\ndescription: user\n---\n");
    skill(join(project, ".tiller", "skills"), "lint", "---\nname: lint\ndescription: project\n---\n");
    const { skills, diagnostics } = loadSkills({ cwd: project, tillerHome: home });
    expect(skills).toHaveLength(1);
    expect(skills[0]!.description).toBe("project");
    expect(diagnostics[0]!.severity).toBe("warning");
  });

  it("finds nested SKILL.md folders and root .md files, ignoring a skill's own subfolders", () => {
    skill(join(home, "skills", "group"), "deep", "---\nname: deep\ndescription: nested\n---\n");
    skill(join(home, "skills", "group", "deep"), "assets", "---\nname: assets\ndescription: not a skill\n---\n");
    writeFileSync(join(home, "skills", "quick.md"), "---\ndescription: single file skill\n---\n");
    const names = loadSkills({ cwd: project, tillerHome: home }).skills.map((s) => s.name);
    expect(names.sort()).toEqual(["deep", "quick"]);
  });

  it("a missing skills folder is not an error", () => {
    rmSync(join(home, "skills"), { recursive: true });
    expect(loadSkills({ cwd: join(root, "nowhere"), tillerHome: home })).toEqual({ skills: [], diagnostics: [] });
  });
});
