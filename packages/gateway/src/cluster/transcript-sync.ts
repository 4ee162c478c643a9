/**
 * Transcripts of a cluster gateway: PostgreSQL's entries table is the truth, the executing node's JSONL file a
 * working copy the engine (SessionManager) opens. Before a run the node brings its copy up to date (only when
 * the table moved since this node last synced it: a session that keeps running here is never re-exported);
 * after the run it appends the new lines to the table, before the run's end is recorded, so the next run of
 * the session, on any node, starts from the whole transcript. Runs of one session never overlap in the cluster,
 * so copy and table cannot diverge under a run. The file is read from the byte offset synced last, so the
 * cost per run is what the run wrote, not the transcript's length.
 */
import { existsSync } from "node:fs";
import { mkdir, open, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SessionHeader, SessionEntry as TranscriptEntry } from "@tiller/coding-agent";
import type { SessionStore } from "../store/session-store.js";
import type { ClusterTranscripts } from "./transcripts.js";

interface SyncMark {
  file: string;
  /** The table's next_pos after the last sync. */
  pos: number;
  /** Bytes of the file that are in the table. */
  bytes: number;
}

export class TranscriptSync {
  private readonly marks = new Map<string, SyncMark>();

  constructor(
    private readonly store: SessionStore,
    private readonly transcripts: ClusterTranscripts,
  ) {}

  /** Makes the local session entry use the cluster's session id and its file hold the table's transcript. */
  async hydrate(key: string, agentId: string, sessionId: string): Promise<void> {
    const entry = this.store.adopt(key, agentId, sessionId);
    const pos = await this.transcripts.position(sessionId);
    if (pos === undefined) return; // nothing written yet: the engine starts the transcript
    const mark = this.marks.get(sessionId);
    const file = entry.sessionFile || join(this.store.transcriptDir(agentId), `${sessionId}.jsonl`);
    if (mark && mark.pos === pos && mark.file === file && existsSync(file)) return;
    await mkdir(dirname(file), { recursive: true }); // the first run of this agent on this node
    await this.transcripts.exportJsonl(sessionId, file);
    if (entry.sessionFile !== file) this.store.setSessionFile(key, file);
    this.marks.set(sessionId, { file, pos, bytes: (await stat(file)).size });
  }

  /** Appends what the run added to the local file to the table (and registers the transcript when new). */
  async writeBack(key: string): Promise<void> {
    const entry = this.store.get(key);
    const file = entry?.sessionFile;
    if (!entry || !file || !existsSync(file)) return;
    const sessionId = entry.sessionId;
    const known = await this.transcripts.position(sessionId);
    const mark = this.marks.get(sessionId);
    const size = (await stat(file)).size;
    // From the start when the table lacks the transcript, the file is another one, or it was rewritten shorter.
    const from = known !== undefined && mark?.file === file && mark.bytes <= size ? mark.bytes : 0;
    const { text, end } = await readCompleteLines(file, from, size);
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    const entries: TranscriptEntry[] = [];
    for (const line of lines) {
      const parsed = JSON.parse(line) as TranscriptEntry | SessionHeader;
      if (parsed.type === "session") {
        if (known === undefined) await this.transcripts.create({ ...parsed, id: sessionId }, key);
      } else entries.push(parsed);
    }
    if (known === undefined && from === 0 && !lines.some((l) => l.includes('"type":"session"'))) return;
    await this.transcripts.append(sessionId, entries);
    const pos = (await this.transcripts.position(sessionId)) ?? 0;
    this.marks.set(sessionId, { file, pos, bytes: end });
  }
}

/** The text of whole lines between `from` and `size` (a line still being written is left for next time). */
async function readCompleteLines(file: string, from: number, size: number): Promise<{ text: string; end: number }> {
  if (size <= from) return { text: "", end: from };
  const fh = await open(file, "r");
  try {
    const buf = Buffer.alloc(size - from);
    await fh.read(buf, 0, buf.length, from);
    const lastNl = buf.lastIndexOf(0x0a);
    if (lastNl < 0) return { text: "", end: from };
    return { text: buf.subarray(0, lastNl + 1).toString("utf8"), end: from + lastNl + 1 };
  } finally {
    await fh.close();
  }
}
