/**
 * A person's input on a live view (the dashboard's and a hand-off's page):
 * clicks and scrolls on the picture, as fractions of it (so any picture size
 * works), and keys, sent through `send` as `POST /screencast/input` bodies.
 * Runs in the page: the pages pass its source to their own script, which
 * calls it (self-contained, so that works).
 */
export function bindLiveViewInput(
  view: HTMLImageElement,
  send: (input: Record<string, unknown>) => void,
  keysGoToView: (event: KeyboardEvent) => boolean,
): void {
  const fraction = (event: MouseEvent) => ({
    x: Math.min(1, Math.max(0, event.offsetX / view.clientWidth)),
    y: Math.min(1, Math.max(0, event.offsetY / view.clientHeight)),
  });
  view.addEventListener('click', (event) => send({ type: 'click', ...fraction(event) }));
  view.addEventListener(
    'wheel',
    (event) => {
      event.preventDefault();
      send({ type: 'scroll', ...fraction(event), deltaX: event.deltaX, deltaY: event.deltaY });
    },
    { passive: false },
  );
  document.addEventListener('keydown', (event) => {
    if (!keysGoToView(event)) return;
    event.preventDefault();
    if (event.key.length === 1 && !event.ctrlKey && !event.metaKey) send({ type: 'type', text: event.key });
    else send({ type: 'press', key: event.key });
  });
}
