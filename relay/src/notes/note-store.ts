import { z } from 'zod';
import { ElementLocatorSchema } from '../api/teach-schemas.js';

/**
 * Where a person's notes are kept until the agent marks them done: a port
 * with two answers, picked when the server starts. Without a store, a file
 * of this server's home (`note-file.ts`), so a restart keeps the open ones;
 * in a fleet, rows of its PostgreSQL (`store/postgres-notes.ts`), so a note
 * written through one server's console reaches the agent whichever server
 * answers its snapshot. A note is on one tab (its profile and target id);
 * what the person marked is kept as locators, found again on the page as
 * it is when the note is read (service/notes-service.ts).
 */

/** The most notes kept per profile; past this the oldest go, done or not. */
export const MAX_NOTES_PER_PROFILE = 200;

/** A kept note, as the file and the store hold it, and as each is read back (or refused as altered). */
export const KeptNoteSchema = z.strictObject({
  id: z.string().regex(/^n\d{1,18}$/),
  profile: z.string().max(200),
  targetId: z.string().max(200),
  url: z.string().max(10_000),
  text: z.string().max(20_000),
  marks: z.array(z.strictObject({ locator: ElementLocatorSchema.extend({ frame: z.string().max(200).optional() }), what: z.string().max(1000) })).max(100),
  at: z.string(),
  done: z.boolean(),
});
export type KeptNote = z.infer<typeof KeptNoteSchema>;

/** A note to keep: the store gives it its id, open. */
export type NewNote = Omit<KeptNote, 'id' | 'done'>;

export interface NoteStore {
  /** Keeps a note, open, under an id no other note of the store has (`n<number>`). */
  add(note: NewNote): Promise<KeptNote>;
  /** The notes of one tab, oldest first: the open ones, or all with `all`. */
  ofTab(profile: string, targetId: string, all: boolean): Promise<KeptNote[]>;
  /** Marks the profile's note `id` done; undefined when the profile has none of that id. */
  markDone(profile: string, id: string): Promise<KeptNote | undefined>;
}
