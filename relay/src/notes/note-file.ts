import { z } from 'zod';
import { readVaultFile, writeFileAtomically } from '../vault/vault-file.js';
import { type KeptNote, KeptNoteSchema, MAX_NOTES_PER_PROFILE, type NewNote, type NoteStore } from './note-store.js';

/**
 * A person's notes as one file of this server's home, `$CLAWD_HOME/notes.json`
 * (0600, written crash-safely, read as its shape or refused as altered):
 * the answer without a fleet's store. A restart keeps every open note; a
 * tab that is still there after it (the person's own Chrome, a remote
 * browser) shows them again in its next snapshot. Held in memory once read,
 * since a snapshot asks for its tab's notes each time.
 */

const FileSchema = z.strictObject({ version: z.literal(1), entries: z.array(KeptNoteSchema) });

export class FileNoteStore implements NoteStore {
  private notes: KeptNote[] | undefined;

  constructor(private readonly path: string) {}

  async add(note: NewNote): Promise<KeptNote> {
    const notes = this.read();
    const last = notes.reduce((max, kept) => Math.max(max, Number(kept.id.slice(1))), 0);
    const kept: KeptNote = { ...note, id: `n${last + 1}`, done: false };
    const same = notes.filter((other) => other.profile === note.profile);
    const dropped = new Set(same.slice(0, Math.max(0, same.length + 1 - MAX_NOTES_PER_PROFILE)));
    this.write([...notes.filter((other) => !dropped.has(other)), kept]);
    return kept;
  }

  async ofTab(profile: string, targetId: string, all: boolean): Promise<KeptNote[]> {
    return this.read().filter((note) => note.profile === profile && note.targetId === targetId && (all || !note.done));
  }

  async markDone(profile: string, id: string): Promise<KeptNote | undefined> {
    const notes = this.read();
    const note = notes.find((candidate) => candidate.id === id && candidate.profile === profile);
    if (!note) return undefined;
    const done = { ...note, done: true };
    this.write(notes.map((candidate) => (candidate === note ? done : candidate)));
    return done;
  }

  private read(): KeptNote[] {
    this.notes ??= readVaultFile(this.path, FileSchema, 'notes file');
    return this.notes;
  }

  private write(notes: KeptNote[]): void {
    writeFileAtomically(this.path, JSON.stringify({ version: 1, entries: notes }));
    this.notes = notes;
  }
}
