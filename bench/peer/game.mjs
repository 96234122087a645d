// The game of the boardgame.io peer (bench/README.md), shared by bgio_server.mjs and by
// loadgen.mjs when it drives boardgame.io's own client (--bgio-client lib).
//
// One move, `roll`: 2d6 with boardgame.io's random plugin (random.D6(2), the server's seeded
// PRNG). G keeps what Umpire's generic state keeps for its roll (`state.last_roll` and the count
// `state.rolls`): the last roll, with who made it and the client's nonce (so that a client
// recognises the state holding its own move), and the count. Every player may move at any time
// (turn.activePlayers = ActivePlayers.ALL), and a move is applied whatever state the client last
// saw (ignoreStaleStateID): 50 players acting at once on one match would otherwise be refused as
// stale, silently (boardgame.io answers nothing to a refused move).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { ActivePlayers } = require('boardgame.io/core');

export const RollGame = {
  name: 'umpire-roll',
  setup: () => ({ last_roll: null, rolls: 0 }),
  turn: { activePlayers: ActivePlayers.ALL },
  moves: {
    // nonce: the client's own counter, so that it recognises the state that holds its move.
    roll: {
      move: ({ G, playerID, random }, nonce) => {
        const d = random.D6(2);
        G.last_roll = { player: playerID, n: nonce, expr: '2d6', values: d, total: d[0] + d[1] };
        G.rolls += 1;
      },
      ignoreStaleStateID: true,
    },
  },
};
