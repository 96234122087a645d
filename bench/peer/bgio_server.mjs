// The boardgame.io peer of `make bench` (bench/README.md, "boardgame.io peer").
//
//   NODE_ENV=production node bgio_server.mjs
//
// boardgame.io's own Server (koa + socket.io, boardgame.io's SocketIO transport) with its default
// storage, the in-memory store (DBFromEnv() without FLATFILE_DIR: InMemory, nothing on disk),
// serving the one game of game.mjs. Matches are created on demand by a client's `sync`
// (numPlayers from it), as boardgame.io does for a match it does not know.
//
// Listens on 127.0.0.1 only, on a port the system picks; prints "PORT <n>" when it listens.
// Exits on SIGTERM/SIGINT, or when the process that started it is gone (checked every second),
// so that it never outlives the script that started it.
import { createRequire } from 'node:module';
import { RollGame } from './game.mjs';

const require = createRequire(import.meta.url);
const { Server } = require('boardgame.io/server');

const server = Server({ games: [RollGame], origins: ['http://127.0.0.1'] });
// run() hands its `port` to http.Server.listen(): an options object binds loopback only.
const { appServer } = await server.run({ port: { port: 0, host: '127.0.0.1' } });
const addr = appServer.address();
if (!addr || addr.address !== '127.0.0.1') {
  console.error('bgio_server: not listening on 127.0.0.1:', addr);
  process.exit(1);
}
process.stdout.write(`PORT ${addr.port}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  try { server.kill({ appServer }); } catch { /* exiting anyway */ }
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
const parent = process.ppid;
setInterval(() => {
  try { process.kill(parent, 0); } catch { stop(); }
  if (process.ppid !== parent) stop();
}, 1000);
