// Basra TV (/tv): the best live game, followed as a watcher. The server picks the game
// (the first of GET /api/watch) and serves the table page with its code on <body
// data-table-code>; this script runs the table page's own script (table.js) for it, and
// when the match ends, moves on after a few seconds (/tv?after=CODE: the next best game).
// With no live game it says so and looks again every few seconds.

import { $ } from "./dom.js";
import { getJSON } from "./api.js";
import { redrawAccount, setupAccount } from "./account.js";
import { setupLang, t } from "./i18n.js";
import { liveGames } from "./live_games.js";

const LOOK_MS = 4000; // how often a TV with no game looks for one
const SCORE_SHOWN_MS = 4000; // how long a deal's score stays on screen
const code = document.body.dataset.tableCode;
const nextMs = Number(document.body.dataset.tvNextMs) || 6000;

function say(key) {
  const status = $("tv-status");
  status.dataset.i18n = key;
  status.textContent = t(key);
}

/** Moves on once the match is over (or the table is gone), after `nextMs`. */
function follow() {
  let leaving = false;
  let scoreSince = null;
  setInterval(() => {
    const scores = $("score-dialog");
    if (scores?.open) {
      scoreSince ??= Date.now();
      if (Date.now() - scoreSince > SCORE_SHOWN_MS) scores.close();
    } else scoreSince = null;
    const over = document.body.dataset.status === "finished" || document.body.classList.contains("gone");
    if (over && !leaving) {
      leaving = true;
      say("tv_next");
      setTimeout(() => location.replace(`/tv?after=${encodeURIComponent(code)}`), nextMs);
    }
  }, 250);
}

/** With no live game: looks again until one starts. */
function wait() {
  setupLang(() => redrawAccount());
  setupAccount();
  setInterval(async () => {
    try {
      if ((await liveGames(getJSON)).length) location.replace("/tv");
    } catch {
      // the next look will tell
    }
  }, LOOK_MS);
}

if (code) {
  await import("./table.js"); // the table page itself, as a watcher of this table
  follow();
} else {
  wait();
}
