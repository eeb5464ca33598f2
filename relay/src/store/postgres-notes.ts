import { ConflictError } from '../errors.js';
import { type KeptNote, KeptNoteSchema, MAX_NOTES_PER_PROFILE, type NewNote, type NoteStore } from '../notes/note-store.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * A person's notes in the fleet's store (spec §18): a row per note, its id
 * the row's, so a note written through one server's console is in every
 * server's snapshot of its tab, and marked done through any. Each row is
 * read back as a note's shape (an altered one is a 409).
 */

interface Row {
  id: string;
  note: unknown;
  done: boolean;
}

export class PostgresNotes implements NoteStore {
  constructor(private readonly store: PostgresStore) {}

  async add(note: NewNote): Promise<KeptNote> {
    const { rows } = await this.store.query<{ id: string }>('INSERT INTO clawd_notes (profile, target_id, note, server) VALUES ($1, $2, $3, $4) RETURNING id', [
      note.profile,
      note.targetId,
      JSON.stringify(note),
      this.store.server,
    ]);
    // The profile's oldest go past the most kept, done or not.
    await this.store.query(
      'DELETE FROM clawd_notes WHERE profile = $1 AND id <= (SELECT id FROM clawd_notes WHERE profile = $1 ORDER BY id DESC OFFSET $2 LIMIT 1)',
      [note.profile, MAX_NOTES_PER_PROFILE],
    );
    return { ...note, id: `n${rows[0].id}`, done: false };
  }

  async ofTab(profile: string, targetId: string, all: boolean): Promise<KeptNote[]> {
    const { rows } = await this.store.query<Row>(
      'SELECT id, note, done FROM clawd_notes WHERE profile = $1 AND target_id = $2 AND ($3 OR NOT done) ORDER BY id',
      [profile, targetId, all],
    );
    return rows.map((row) => this.noteOf(row));
  }

  async markDone(profile: string, id: string): Promise<KeptNote | undefined> {
    const number = /^n(\d{1,18})$/.exec(id)?.[1];
    if (number === undefined) return undefined;
    const { rows } = await this.store.query<Row>('UPDATE clawd_notes SET done = true WHERE id = $1 AND profile = $2 RETURNING id, note, done', [
      number,
      profile,
    ]);
    return rows[0] && this.noteOf(rows[0]);
  }

  private noteOf(row: Row): KeptNote {
    const checked = KeptNoteSchema.safeParse({ ...(row.note as object), id: `n${row.id}`, done: row.done });
    if (!checked.success) throw new ConflictError(`Note n${row.id} in the store (${this.store.name}) does not have a note's shape: it was altered`);
    return checked.data;
  }
}
