// The way back from a tournament's game to the tournament's page: at a table of a
// tournament (the state's `tournament`, docs/web-protocol.md), once the match is over,
// "Back to the tournament" takes the place of Rematch and New game, and a seated player
// goes back by themselves a few seconds later, told so by a countdown (in the result panel
// and in the last deal's score, whichever is on screen). The tournament's page then takes
// them to their next game.

import { $ } from "./dom.js";
import { t } from "./i18n.js";

const RETURN_SECONDS = 5;

let deadline = null; // when a seated player goes back (Unix ms), once the countdown runs
let timer = null;
let target = null;

/** The id of the tournament a table's state belongs to, or null. */
export function tournamentOf(state) {
  return state?.tournament ?? state?.table?.tournament ?? null;
}

function showCountdown() {
  const left = deadline === null ? null : Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  for (const node of document.querySelectorAll(".tournament-return")) {
    node.hidden = left === null;
    node.textContent = left === null ? "" : t("back_to_tournament_in", { n: left });
  }
  if (left === 0) {
    clearInterval(timer);
    timer = null;
    location.assign(target);
  }
}

/** Draws the way back for this state: the button once the match is over, and for a
 * seated player the countdown, started the first time the result is seen. */
export function renderTournamentReturn(state, seated) {
  const id = tournamentOf(state);
  const over = Boolean(id && state?.result);
  const back = $("back-to-tournament");
  back.hidden = !over;
  if (id) {
    target = `/tournament/${encodeURIComponent(id)}`;
    back.href = target;
  }
  if (over && seated && deadline === null) {
    deadline = Date.now() + RETURN_SECONDS * 1000;
    timer = setInterval(showCountdown, 250);
  } else if (!over && deadline !== null) {
    clearInterval(timer);
    timer = null;
    deadline = null;
  }
  showCountdown();
}
