// Watch (/watch): the live games anyone may watch, rated games of the best players first
// (GET /api/watch, polled every few seconds), each linking to its table as a watcher, and
// Basra TV, which follows the best of them.

import { $ } from "./dom.js";
import { getJSON } from "./api.js";
import { redrawAccount, setupAccount } from "./account.js";
import { setupLang } from "./i18n.js";
import { gameElement, liveGames } from "./live_games.js";

const REFRESH_MS = 5000;

let games = null;
let failed = null;

function render() {
  $("alert").textContent = failed ?? "";
  if (!games) return;
  $("watch-none").hidden = games.length > 0;
  const focused = document.activeElement?.closest?.("[data-code]")?.dataset.code;
  $("watch-list").replaceChildren(...games.map(gameElement));
  if (focused) document.querySelector(`[data-code="${CSS.escape(focused)}"] a`)?.focus();
}

async function refresh() {
  try {
    games = await liveGames(getJSON);
    failed = null;
  } catch (error) {
    failed = error.message;
  }
  render();
}

function init() {
  setupLang(() => {
    render();
    redrawAccount();
  });
  setupAccount();
  refresh();
  setInterval(refresh, REFRESH_MS);
}

init();
