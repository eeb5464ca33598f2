/**
 * A line on stderr that says what the CLI is waiting for and for how long,
 * while it waits: only on a terminal, never with --json (machine output
 * stays one JSON value), and erased when the wait ends.
 */
export async function withProgress<T>(label: string, work: Promise<T>, options: { json: boolean; stream?: NodeJS.WriteStream }): Promise<T> {
  const stream = options.stream ?? process.stderr;
  if (options.json || !stream.isTTY) return work;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  const started = Date.now();
  let tick = 0;
  const draw = () => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    stream.write(`\r${frames[tick++ % frames.length]} ${label}${seconds ? ` (${seconds} s)` : ''}  `);
  };
  // Quick answers show nothing at all.
  const timer = setInterval(draw, 120);
  timer.unref();
  try {
    return await work;
  } finally {
    clearInterval(timer);
    if (tick) stream.write('\r\x1b[K');
  }
}
