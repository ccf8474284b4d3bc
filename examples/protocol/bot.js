// A canasta bot in JavaScript speaking the canasta-sim protocol (docs/protocol.md); Node, no npm packages.
//
//   canasta-sim run --games 100 -s "cmd:node examples/protocol/bot.js" -s greedy
//
// It asks for every decision's legal moves to be listed ("legal": true) and picks among them:
// the biggest pile take, else a draw; the meld laying the most cards; a discard of its least useful
// card.  Ties are broken by a small generator seeded from the game's "seed", so a game replays exactly.
// It speaks protocol 2: one process plays up to GAMES games at once, every message naming its game, and a
// "decide" carries only what changed in the view since the last one (merged into the game's copy here).
// It is asked only where it has a choice ("choices_only"): a decision with one legal answer (a forced draw,
// no legal meld, one card to discard) is played for it, and the next request's view shows what it did.
"use strict";

const readline = require("readline");

const KINDS = ["JK", "2", "3b", "3r", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const VALUES = [50, 20, 5, 100, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20];

// mulberry32: a tiny deterministic generator; the seed's low 32 bits seed it.
function generator(seed) {
  let state = Number(BigInt.asUintN(32, BigInt(seed))) >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const GAMES = 128; // games this process plays at once: the more, the fewer writes and wake-ups a request
const games = new Map(); // game -> { random, minMeld (parameter min_meld: fewest cards a meld lays), view }

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

function cardsIn(move) {
  // Hand cards a move lays: "meld K K K; 8 8 2" -> 6, "take 7 7" -> 2, "meld 7:JK" -> 1.
  return move.replace(/;/g, " ").split(" ").slice(1).filter((word) => word.length > 0).length;
}

function decide(game, message) {
  const legal = message.legal;
  Object.assign(game.view, message.view); // only the fields that changed come
  const view = game.view;
  const random = game.random;
  const minMeld = game.minMeld;
  switch (message.decision) {
    case "acquire": {
      const takes = legal.filter((move) => move.startsWith("take"));
      if (takes.length > 0) {
        takes.sort((a, b) => cardsIn(b) - cardsIn(a) || (a < b ? -1 : a > b ? 1 : 0));
        return takes[0];
      }
      return legal.includes("draw") ? "draw" : legal[0];
    }
    case "ask":
      return null;
    case "answer":
      return "answer yes";
    case "meld": {
      const melds = legal.filter((move) => move !== null);
      let best = null;
      for (const move of melds) if (best === null || cardsIn(move) > cardsIn(best)) best = move;
      return best !== null && cardsIn(best) >= minMeld ? best : null;
    }
    case "discard": {
      const hand = view.hand;
      let best = null;
      let bestCost = null;
      for (const move of legal) {
        const kind = KINDS.indexOf(move.split(" ")[1]);
        const cost = [kind <= 1 ? 1 : 0, hand[kind] >= 2 ? 1 : 0, -VALUES[kind], random()];
        if (bestCost === null || compare(cost, bestCost) < 0) {
          best = move;
          bestCost = cost;
        }
      }
      return best;
    }
    default:
      throw new Error("unknown decision " + message.decision);
  }
}

function compare(a, b) {
  for (let index = 0; index < a.length; index += 1) {
    if (a[index] !== b[index]) return a[index] < b[index] ? -1 : 1;
  }
  return 0;
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  if (line.trim() === "") return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({
        type: "ready", protocol: 2, games: GAMES, name: "jsbot", version: 3,
        description: "A JavaScript example: biggest take, biggest meld, loosest discard.",
        parameters: { min_meld: 1 }, legal: true, events: false, choices_only: true,
      });
      break;
    case "game":
      games.set(message.game, {
        random: generator(message.seed), minMeld: Number(message.parameters.min_meld), view: {},
      });
      break;
    case "hand_start":
      games.get(message.game).view = Object.assign({}, message.view);
      break;
    case "decide":
      send({ type: "move", game: message.game, move: decide(games.get(message.game), message) });
      break;
    case "game_end":
      games.delete(message.game);
      break;
    case "quit":
      process.exit(0);
      break;
    default:
      break; // hand_end needs no answer
  }
});
input.on("close", () => process.exit(0));
