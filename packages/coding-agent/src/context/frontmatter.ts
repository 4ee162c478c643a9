/**
 * A small YAML-frontmatter reader for SKILL.md and prompt templates: flat `key: value` pairs, quoted strings,
 * and `|` / `>` block scalars. Nested maps and lists are kept as raw text; nothing here needs them.
 */
export interface Frontmatter {
  /** Keys found, with string values (block scalars joined). */
  attributes: Record<string, string>;
  /** Everything after the closing `---` (or the whole text when there is no frontmatter). */
  body: string;
  /** Set when the text opens a frontmatter block that never closes. */
  error?: string;
}

export function parseFrontmatter(text: string): Frontmatter {
  const src = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (!/^---\r?\n/.test(src)) return { attributes: {}, body: src };
  const lines = src.split(/\r?\n/);
  let end = -1;
  for (let i = 1; i < lines.length; i++) {
    if (lines[i] === "---" || lines[i] === "...") {
      end = i;
      break;
    }
  }
  if (end < 0) return { attributes: {}, body: src, error: "frontmatter opened with --- but never closed" };
  const attributes: Record<string, string> = {};
  let i = 1;
  while (i < end) {
    const line = lines[i]!;
    const m = /^([A-Za-z0-9_-]+)\s*:\s*(.*)$/.exec(line);
    if (!m) {
      i++;
      continue;
    }
    const key = m[1]!;
    const raw = m[2]!.trim();
    if (raw === "|" || raw === ">" || raw === "|-" || raw === ">-") {
      const block: string[] = [];
      i++;
      while (i < end && (/^\s+/.test(lines[i]!) || lines[i] === "")) {
        block.push(lines[i]!.trim());
        i++;
      }
      attributes[key] = raw.startsWith("|") ? block.join("\n").trim() : block.join(" ").replace(/\s+/g, " ").trim();
      continue;
    }
    attributes[key] = unquote(raw);
    i++;
    // Indented continuation lines belong to a plain multi-line scalar.
    while (i < end && /^\s+\S/.test(lines[i]!) && !/^\s*-\s/.test(lines[i]!)) {
      attributes[key] = `${attributes[key]} ${lines[i]!.trim()}`.trim();
      i++;
    }
  }
  return { attributes, body: lines.slice(end + 1).join("\n") };
}

function unquote(value: string): string {
  if (value.length >= 2) {
    const q = value[0];
    if ((q === '"' || q === "'") && value[value.length - 1] === q) {
      const inner = value.slice(1, -1);
      return q === '"'
        ? inner.replace(/\\"/g, '"').replace(/\\n/g, "\n").replace(/\\\\/g, "\\")
        : inner.replace(/''/g, "'");
    }
  }
  // Drop a trailing YAML comment on a plain scalar.
  const hash = value.search(/\s#/);
  return hash >= 0 ? value.slice(0, hash).trim() : value;
}

/**
 * The text without its frontmatter block (pi's `stripFrontmatter`): line ends normalized to LF, and the body
 * trimmed when a block was removed. Text without a (closed) block is returned with normalized line ends only.
 */
export function stripFrontmatter(text: string): string {
  const normalized = text.replace(/\r\n?/g, "\n");
  if (!normalized.startsWith("---\n")) return normalized;
  const parsed = parseFrontmatter(normalized);
  return parsed.error ? normalized : parsed.body.trim();
}
