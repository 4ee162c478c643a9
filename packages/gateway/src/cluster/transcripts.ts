/**
 * Transcripts in the cluster: an append-only entries table holding the same v3 entry JSON the JSONL files
 * hold, one row per entry, ordered by `pos`. Any node can append to a session (only the node running the
 * session's run does, so appends never interleave); `exportJsonl` writes the header and entries as the JSONL
 * file `SessionManager` opens, which is what `tiller sessions export` produces on a single node.
 */
import { open, rename } from "node:fs/promises";
import { newEntryId, type SessionEntry, type SessionHeader } from "@tiller/coding-agent";
import type { ClusterPool } from "./pool.js";

/** Entries are read and exported in pages of this many, so a long transcript is never one result set. */
const PAGE = 1000;

export class ClusterTranscripts {
  constructor(private readonly pool: ClusterPool) {}

  /** Registers a transcript (its header line). A second call with the same id keeps the first header. */
  async create(header: SessionHeader, sessionKey?: string): Promise<void> {
    await this.pool.query(
      `INSERT INTO cluster_transcripts (session_id, session_key, header) VALUES ($1, $2, $3)
       ON CONFLICT (session_id) DO NOTHING`,
      [header.id, sessionKey ?? null, JSON.stringify(header)],
    );
  }

  /**
   * Appends entries in order, in one transaction. An entry id already present is skipped (an append retried
   * after a lost COMMIT reply adds nothing twice). Throws for an unknown transcript.
   */
  async append(sessionId: string, entries: readonly SessionEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.pool.tx(async (db) => {
      const head = await db.query<{ next_pos: string }>(
        "SELECT next_pos FROM cluster_transcripts WHERE session_id = $1 FOR UPDATE",
        [sessionId],
      );
      const row = head.rows[0];
      if (!row) throw new Error(`cluster transcript ${sessionId} does not exist`);
      const start = Number(row.next_pos);
      const ins = await db.query(
        `INSERT INTO cluster_transcript_entries (session_id, pos, entry_id, entry)
         SELECT $1, $2 + e.ord - 1, e.id, e.entry FROM unnest($3::text[], $4::jsonb[]) WITH ORDINALITY AS e(id, entry, ord)
         ON CONFLICT (session_id, entry_id) DO NOTHING`,
        [sessionId, start, entries.map((e) => e.id), entries.map((e) => JSON.stringify(e))],
      );
      if (ins.rowCount === 0) return; // all of them were there already
      const last = entries[entries.length - 1] as SessionEntry;
      await db.query("UPDATE cluster_transcripts SET next_pos = $2, leaf_id = $3 WHERE session_id = $1", [
        sessionId,
        start + entries.length,
        last.id,
      ]);
    });
  }

  /** Appends one entry as a child of the current leaf (the id is made here). Returns the entry. */
  async appendChild(
    sessionId: string,
    make: (ids: { id: string; parentId: string | null }) => SessionEntry,
  ): Promise<SessionEntry | undefined> {
    const { rows } = await this.pool.query<{ leaf_id: string | null }>(
      "SELECT leaf_id FROM cluster_transcripts WHERE session_id = $1",
      [sessionId],
    );
    if (!rows[0]) return undefined;
    const entry = make({ id: newEntryId(new Set()), parentId: rows[0].leaf_id });
    await this.append(sessionId, [entry]);
    return entry;
  }

  /** Where the next entry goes (it changes with every append), or undefined for an unknown transcript. */
  async position(sessionId: string): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ next_pos: string }>(
      "SELECT next_pos FROM cluster_transcripts WHERE session_id = $1",
      [sessionId],
    );
    return rows[0] ? Number(rows[0].next_pos) : undefined;
  }

  async header(sessionId: string): Promise<SessionHeader | undefined> {
    const { rows } = await this.pool.query<{ header: SessionHeader }>(
      "SELECT header FROM cluster_transcripts WHERE session_id = $1",
      [sessionId],
    );
    return rows[0]?.header;
  }

  /** The entries in order, page by page. */
  async *entries(sessionId: string): AsyncGenerator<SessionEntry[]> {
    let after = -1;
    for (;;) {
      const { rows } = await this.pool.query<{ pos: string; entry: SessionEntry }>(
        `SELECT pos, entry FROM cluster_transcript_entries WHERE session_id = $1 AND pos > $2 ORDER BY pos LIMIT $3`,
        [sessionId, after, PAGE],
      );
      if (rows.length === 0) return;
      after = Number(rows[rows.length - 1]?.pos);
      yield rows.map((r) => r.entry);
      if (rows.length < PAGE) return;
    }
  }

  /**
   * Writes the transcript as a JSONL file (header line, then one line per entry), mode 0600, via a temp file
   * and rename so a reader never sees half a file. Returns the number of entries written.
   */
  async exportJsonl(sessionId: string, file: string): Promise<number> {
    const header = await this.header(sessionId);
    if (!header) throw new Error(`cluster transcript ${sessionId} does not exist`);
    const tmp = `${file}.${process.pid}.tmp`;
    const fh = await open(tmp, "w", 0o600);
    let count = 0;
    try {
      await fh.write(`${JSON.stringify(header)}\n`);
      for await (const page of this.entries(sessionId)) {
        await fh.write(page.map((e) => `${JSON.stringify(e)}\n`).join(""));
        count += page.length;
      }
    } finally {
      await fh.close();
    }
    await rename(tmp, file);
    return count;
  }
}
