import { randomInt } from 'node:crypto';

/**
 * A person's notes to the agent (spec §23) as an agent reads them: what
 * clawd says of them (their ids, the refs of the elements marked) outside,
 * the person's own words between two lines no page and no note can write:
 *
 *     [notes from the person on this tab: n1 on e12 (button "Pay"); n2 on the page]
 *     <person 482>
 *     n1: use the blue button
 *     n2: this field wants the order number
 *     </person 482>
 *
 * The number is chosen per answer among those none of the words hold, so a
 * page quoting "<person 1>" inside its own words cannot pass for the person.
 * The one place notes are worded for an agent: snapshots, the notes call,
 * MCP and the CLI all take it from here.
 */

export interface NoteWords {
  id: string;
  text: string;
  marks: Array<{ what: string; ref?: string }>;
}

export function fencedNotes(notes: NoteWords[]): string {
  if (!notes.length) return '';
  const where = notes.map((note) => {
    const marks = note.marks.map((mark) => (mark.ref ? `${mark.ref} (${mark.what})` : `${mark.what}, not on this page`));
    return `${note.id} on ${marks.length ? marks.join(', ') : 'the page'}`;
  });
  const body = notes.map((note) => `${note.id}: ${note.text.replace(/\r?\n/g, '\n    ')}`);
  const fence = chooseFence(body);
  return [`[notes from the person on this tab: ${where.join('; ')}. Mark one done when it is done (browser_notes, POST /notes/done)]`, `<person ${fence}>`, ...body, `</person ${fence}>`].join('\n');
}

function chooseFence(words: string[]): string {
  for (let digits = 3; ; digits += 3) {
    for (let i = 0; i < 8; i++) {
      const fence = String(randomInt(10 ** (digits - 1), 10 ** digits));
      if (!words.some((word) => word.includes(`person ${fence}>`))) return fence;
    }
  }
}
