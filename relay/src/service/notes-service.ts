import type { z } from 'zod';
import { withFence } from '../api/page-content.js';
import { fencedNotes } from '../api/person-words.js';
import type { Note, Notes, teachSchemas } from '../api/teach-schemas.js';
import type { DriverTab } from '../driver/driver-tab.js';
import type { ProfileDriver } from '../driver/profile-driver.js';
import type { ProfileManager } from '../driver/profile-manager.js';
import { refForLocator } from '../driver/acts/locator-refs.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { KeptNote, NoteStore } from '../notes/note-store.js';
import { locatorOf, whatOf } from '../replay/person-steps.js';

/**
 * A person's notes on a page (spec §23): they mark elements in a tab (their
 * clicks mark, and do nothing else, until the note is sent) and write a note
 * ("use the blue button"); the agent receives it in its next snapshot of the
 * tab, with the refs the marked elements have then, fenced as the person's
 * words (api/person-words.ts), and marks it done. Sent notes are kept in
 * the NoteStore the server was given (a file of its home, or the fleet's
 * store: notes/note-store.ts), so a restart keeps them and every server of
 * a fleet shows them; a note being written (its marks so far) is this
 * server's, as the clicks are heard in the browser it drives.
 */

interface Draft {
  tab: DriverTab;
  marks: KeptNote['marks'];
}

export class NotesService {
  private readonly drafts = new Map<string, Draft>();

  constructor(
    /** The drivers a note is read and written in. */
    private readonly drivers: Pick<ProfileManager, 'driver'>,
    private readonly store: NoteStore,
  ) {}

  /** `POST /notes/start`: the person's clicks in the tab mark elements for the note, until it is sent or cancelled. */
  async start(profile: string | undefined, request: z.output<typeof teachSchemas.noteStart>): Promise<{ targetId: string; marking: string[]; fence: string }> {
    const driver = this.drivers.driver(profile);
    const tab = await driver.tabFor(request.targetId);
    const targetId = await tab.targetId();
    const key = keyOf(driver.profile.name, targetId);
    const draft = this.drafts.get(key) ?? { tab, marks: [] };
    if (!this.drafts.has(key) && tab.person.mode === 'demonstrate')
      throw new ConflictError(`A demonstration goes on in tab ${targetId}: stop it first, then mark elements for a note`);
    this.drafts.set(key, draft);
    await tab.person.watch('mark', (step) => {
      if (step.kind !== 'mark') return;
      void locatorOf(step.element).then((locator) => {
        const what = whatOf(step.element, locator);
        if (!draft.marks.some((mark) => mark.what === what)) draft.marks.push({ locator, what });
      });
    });
    return withFence({ targetId, marking: draft.marks.map((mark) => mark.what) });
  }

  /** The elements marked so far for the tab's note being written. */
  marking(profile: string, targetId: string): string[] | undefined {
    return this.drafts.get(keyOf(profile, targetId))?.marks.map((mark) => mark.what);
  }

  /** `POST /notes`: the person's note, on the elements marked since /notes/start (or on the page). */
  async add(profile: string | undefined, request: z.output<typeof teachSchemas.noteAdd>): Promise<Note> {
    const driver = this.drivers.driver(profile);
    const tab = await driver.tabFor(request.targetId);
    const targetId = await tab.targetId();
    const draft = this.drafts.get(keyOf(driver.profile.name, targetId));
    if (draft) await this.endDraft(driver.profile.name, targetId);
    const note = await this.store.add({
      profile: driver.profile.name,
      targetId,
      url: tab.page.url(),
      text: request.text,
      marks: draft?.marks ?? [],
      at: new Date().toISOString(),
    });
    return withFence({ ...shown(note), marks: note.marks.map((mark) => ({ what: mark.what })) });
  }

  /** `POST /notes/cancel`: no note; the person's clicks act on the page again. */
  async cancel(profile: string | undefined, request: z.output<typeof teachSchemas.noteCancel>): Promise<{ targetId: string; cancelled: boolean }> {
    const driver = this.drivers.driver(profile);
    const targetId = await (await driver.tabFor(request.targetId)).targetId();
    const cancelled = this.drafts.has(keyOf(driver.profile.name, targetId));
    await this.endDraft(driver.profile.name, targetId);
    return { targetId, cancelled };
  }

  /** `GET /notes`: the tab's open notes (all of them with `all`), each mark with its ref on the page now. */
  async list(profile: string | undefined, query: { targetId?: string; all?: boolean }): Promise<Notes> {
    const driver = this.drivers.driver(profile);
    const tab = await driver.tabFor(query.targetId);
    const targetId = await tab.targetId();
    const notes = await this.resolved(await this.store.ofTab(driver.profile.name, targetId, query.all ?? false), tab, { walk: true });
    const marking = this.marking(driver.profile.name, targetId);
    // The marked elements' names and the pages' URLs are the page's words: the answer's fence is theirs, in the text too.
    const answer = withFence({ notes, ...(marking ? { marking } : {}) });
    return {
      ...answer,
      fenced: fencedNotes(
        notes.filter((note) => !note.done),
        answer.fence,
      ),
    };
  }

  /** `POST /notes/done`: the agent did what the note asked; it is not shown again. */
  async done(profile: string | undefined, id: string): Promise<Note> {
    const name = this.drivers.driver(profile).profile.name;
    const note = await this.store.markDone(name, id);
    if (!note) throw new NotFoundError(`No note ${JSON.stringify(id)} in profile ${name}`);
    return withFence({ ...shown(note), marks: note.marks.map((mark) => ({ what: mark.what })) });
  }

  /**
   * The tab's open notes as an agent reads them, for the snapshot just taken (its walk stands: the refs are its own);
   * none: undefined. A store that does not answer leaves the snapshot whole, saying so where the notes would be.
   */
  async forSnapshot(driver: ProfileDriver, targetId: string): Promise<string | undefined> {
    let open: KeptNote[];
    try {
      open = await this.store.ofTab(driver.profile.name, targetId, false);
    } catch (error) {
      return `[the person's notes on this tab could not be read: ${(error as Error).message.split('\n')[0]}; GET /notes says when they can]`;
    }
    if (!open.length) return undefined;
    const tab = await driver.tabFor(targetId);
    return fencedNotes(await this.resolved(open, tab, { walk: false }));
  }

  private async resolved(mine: KeptNote[], tab: DriverTab, how: { walk: boolean }): Promise<Note[]> {
    let walk = how.walk;
    const out: Note[] = [];
    for (const note of mine) {
      const marks = [];
      for (const mark of note.marks) {
        const found = await refForLocator(tab, mark.locator, { walk }).catch(() => ({ problem: 'gone' }));
        walk = false;
        marks.push({ what: mark.what, ...('ref' in found ? { ref: found.ref } : {}) });
      }
      out.push({ ...shown(note), marks });
    }
    return out;
  }

  private async endDraft(profile: string, targetId: string): Promise<void> {
    const draft = this.drafts.get(keyOf(profile, targetId));
    this.drafts.delete(keyOf(profile, targetId));
    if (draft && draft.tab.person.mode === 'mark') await draft.tab.person.stop().catch(() => {});
  }
}

const keyOf = (profile: string, targetId: string) => `${profile}\n${targetId}`;

function shown(note: KeptNote): Omit<Note, 'marks'> {
  return { id: note.id, targetId: note.targetId, url: note.url, text: note.text, at: note.at, done: note.done };
}
