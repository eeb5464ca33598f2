import { chooseFence } from './page-content.js';

/**
 * A person's notes to the agent (spec §23) as an agent reads them: what
 * clawd says of them (their ids, the refs of the elements marked) on its
 * own line; the marked elements as the page names them (`button "Pay"`:
 * the page's words, so between the page's fence lines); and the person's
 * own words between lines no page and no note can write:
 *
 *     [notes from the person on this tab: n1 on e12; n2 on the page. The elements as the page names them, then the person's words. Mark one done when it is done (browser_notes, POST /notes/done)]
 *     <page 731>
 *     e12: button "Pay"
 *     </page 731>
 *     <person 482>
 *     n1: use the blue button
 *     n2: this field wants the order number
 *     </person 482>
 *
 * Each number is chosen per answer among those none of the words hold, so
 * a page quoting "<person 1>" inside its own words cannot pass for the
 * person, nor an element's name for clawd. The one place notes are worded
 * for an agent: snapshots, the notes call, MCP and the CLI all take it from
 * here.
 */

export interface NoteWords {
  id: string;
  text: string;
  marks: Array<{ what: string; ref?: string }>;
}

export function fencedNotes(notes: NoteWords[], pageFence?: string): string {
  if (!notes.length) return '';
  const where = notes.map((note) => {
    const here = note.marks.flatMap((mark) => (mark.ref ? [mark.ref] : []));
    const gone = note.marks.length - here.length;
    const marks = [...here, ...(gone ? [`${gone} element${gone === 1 ? '' : 's'} not on this page`] : [])];
    return `${note.id} on ${marks.length ? marks.join(', ') : 'the page'}`;
  });
  // An element gone from the page is named under its note's id; one that is here, under its ref.
  const named = notes.flatMap((note) => note.marks.map((mark) => `${mark.ref ?? note.id}: ${mark.what}`));
  const body = notes.map((note) => `${note.id}: ${note.text.replace(/\r?\n/g, '\n    ')}`);
  const all = [...named, ...body];
  const page = pageFence && !all.some((word) => word.includes(`page ${pageFence}>`)) ? pageFence : chooseFence(all, 'page');
  const person = chooseFence(all, 'person');
  return [
    `[notes from the person on this tab: ${where.join('; ')}.${named.length ? " The elements as the page names them, then the person's words." : ''} Mark one done when it is done (browser_notes, POST /notes/done)]`,
    ...(named.length ? [`<page ${page}>`, ...named, `</page ${page}>`] : []),
    `<person ${person}>`,
    ...body,
    `</person ${person}>`,
  ].join('\n');
}
