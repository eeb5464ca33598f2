// Echoes what it is sent, for bench/worker-transport.ts: `ws <port>` as a
// WebSocket server on 127.0.0.1, or `native` as a native messaging host
// (Chrome's framing on stdin/stdout: a 4-byte length, then the JSON).
import { WebSocketServer } from 'ws';

if (process.argv[2] === 'ws') {
  const server = new WebSocketServer({ host: '127.0.0.1', port: Number(process.argv[3]) });
  server.on('connection', (socket) => socket.on('message', (data, binary) => socket.send(data, { binary })));
  server.on('listening', () => process.stdout.write('listening\n'));
} else {
  let buffered = Buffer.alloc(0);
  process.stdin.on('data', (chunk) => {
    buffered = Buffer.concat([buffered, chunk]);
    let end = 0;
    while (buffered.length - end >= 4 && buffered.length - end >= 4 + buffered.readUInt32LE(end)) end += 4 + buffered.readUInt32LE(end);
    if (!end) return;
    process.stdout.write(buffered.subarray(0, end));
    buffered = buffered.subarray(end);
  });
  process.stdin.on('end', () => process.exit(0));
}
