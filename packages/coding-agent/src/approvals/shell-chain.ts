/**
 * Splits a shell command into the segments of its chain (`&&`, `||`, `;`, `|`, `&`, newlines) and the words of
 * each, with quotes and escapes removed, so the allowlist can check every segment's executable. Anything the
 * split cannot account for statically — command substitution, redirections to files, subshells, unterminated
 * quotes — fails the analysis: an allowlist never matches what it cannot see.
 */

export interface ShellWord {
  text: string;
  /** Contains an expansion (`$VAR`) or an unquoted glob character: its value is only known at run time. */
  dynamic: boolean;
}

export type ShellChain = { ok: true; segments: ShellWord[][] } | { ok: false; reason: string };

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** The executable word of a segment: the first word after leading `NAME=value` assignments. */
export function executableWord(segment: ShellWord[]): ShellWord | undefined {
  for (const word of segment) if (!ASSIGNMENT.test(word.text)) return word;
  return undefined;
}

export function splitShellChain(command: string): ShellChain {
  const segments: ShellWord[][] = [];
  let words: ShellWord[] = [];
  let text = "";
  let dynamic = false;
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push({ text, dynamic });
    text = "";
    dynamic = false;
    inWord = false;
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) segments.push(words);
    words = [];
  };
  const fail = (reason: string): ShellChain => ({ ok: false, reason });
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    const next = command[i + 1];
    if (ch === "'") {
      const close = command.indexOf("'", i + 1);
      if (close < 0) return fail("an unterminated ' quote");
      text += command.slice(i + 1, close);
      inWord = true;
      i = close;
    } else if (ch === '"') {
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        const c = command[j]!;
        if (c === "\\" && j + 1 < command.length && '$`"\\\n'.includes(command[j + 1]!)) {
          text += command[++j];
        } else if (c === "`" || (c === "$" && command[j + 1] === "(")) {
          return fail("command substitution");
        } else {
          if (c === "$") dynamic = true;
          text += c;
        }
      }
      if (j >= command.length) return fail('an unterminated " quote');
      inWord = true;
      i = j;
    } else if (ch === "\\") {
      if (next === "\n") i++;
      else if (next !== undefined) {
        text += next;
        inWord = true;
        i++;
      }
    } else if (ch === "`" || (ch === "$" && next === "(")) {
      return fail("command substitution");
    } else if (ch === " " || ch === "\t") {
      endWord();
    } else if (ch === "\n" || ch === ";") {
      endSegment();
    } else if (ch === "&") {
      if (next === "&") i++;
      else if (next === ">") return fail("a redirection");
      endSegment();
    } else if (ch === "|") {
      if (next === "|" || next === "&") i++;
      endSegment();
    } else if (ch === ">" || ch === "<") {
      // Only duplicating a descriptor (2>&1, >&2) is harmless; any other redirection reads or writes a file.
      const fdOnly =
        /^[0-9]?$/.test(text) && !dynamic && ch === ">" && next === "&" && /[0-9]/.test(command[i + 2] ?? "");
      if (!fdOnly) return fail("a redirection");
      text = "";
      inWord = false;
      i += 2;
    } else if (ch === "(" || ch === ")") {
      return fail("a subshell");
    } else if (ch === "#" && !inWord) {
      while (i + 1 < command.length && command[i + 1] !== "\n") i++;
    } else {
      if (ch === "$" || ch === "*" || ch === "?" || ch === "[" || ch === "~") dynamic = true;
      text += ch;
      inWord = true;
    }
  }
  endSegment();
  if (segments.length === 0) return fail("no command");
  return { ok: true, segments };
}
