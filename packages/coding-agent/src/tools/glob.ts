/**
 * Glob patterns as used by .gitignore, ripgrep's `--glob` and the find tool: `*` and `?` stay within one
 * path segment, `**` crosses segments, `[...]` is a class, `{a,b}` alternatives.
 */

function escapeRegex(ch: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(ch) ? `\\${ch}` : ch;
}

/** Regex source (no anchors) for a glob matched against a `/`-separated path. */
export function globToRegexSource(glob: string): string {
  let out = "";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === "\\" && i + 1 < glob.length) {
      out += escapeRegex(glob[++i]!);
    } else if (ch === "*") {
      if (glob[i + 1] === "*") {
        const atStart = i === 0 || glob[i - 1] === "/";
        const slashAfter = glob[i + 2] === "/";
        if (atStart && slashAfter) {
          out += "(?:.*/)?";
          i += 2;
        } else if (atStart && i + 2 === glob.length) {
          out += ".*";
          i += 1;
        } else {
          out += "[^/]*";
          i += 1;
        }
      } else out += "[^/]*";
    } else if (ch === "?") {
      out += "[^/]";
    } else if (ch === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) out += "\\[";
      else {
        let body = glob.slice(i + 1, close);
        if (body.startsWith("!")) body = `^${body.slice(1)}`;
        out += `[${body.replace(/\\/g, "\\\\")}]`;
        i = close;
      }
    } else if (ch === "{") {
      braceDepth++;
      out += "(?:";
    } else if (ch === "}" && braceDepth > 0) {
      braceDepth--;
      out += ")";
    } else if (ch === "," && braceDepth > 0) {
      out += "|";
    } else out += escapeRegex(ch);
  }
  while (braceDepth-- > 0) out += ")";
  return out;
}

/** A compiled glob. Without a `/`, it matches the base name at any depth; with one, the whole relative path. */
export interface GlobMatcher {
  matches(relPath: string): boolean;
}

export function compileGlob(glob: string, options: { ignoreCase?: boolean } = {}): GlobMatcher {
  let g = glob;
  if (g.startsWith("./")) g = g.slice(2);
  const anchored = g.includes("/") && !(g.endsWith("/") && g.indexOf("/") === g.length - 1);
  if (g.startsWith("/")) g = g.slice(1);
  if (g.endsWith("/")) g = g.slice(0, -1);
  const flags = options.ignoreCase ? "i" : "";
  if (anchored) {
    const re = new RegExp(`^${globToRegexSource(g)}$`, flags);
    return { matches: (p) => re.test(p) };
  }
  const re = new RegExp(`^${globToRegexSource(g)}$`, flags);
  return { matches: (p) => re.test(p.slice(p.lastIndexOf("/") + 1)) };
}
