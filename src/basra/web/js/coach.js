// Hints and the coach at a table: only in unrated games against the computer, for the
// seated player. "Hint" shows the computer's ranking of the player's moves; the coach,
// when switched on, says right after a play that it was a blunder (10 points or more
// worse than the best move, as the analysis labels it).

import { $, el } from "./dom.js";
import { getJSON } from "./api.js";
import { t } from "./i18n.js";
import { moveWords } from "./moves.js";

const COACH_KEY = "basra.coach";
const BLUNDER = 10;

let page = null; // { code, token(), state(), mySeat(), myTurn(), rated() }
let ranking = null; // { seq, moves } for the player's current turn
let asking = null;

/** Whether hints may be given here: a seated player, an unrated table, computers only. */
function allowed(state) {
  const seat = page.mySeat();
  if (!state || seat === null || page.rated() || !page.token()) return false;
  return state.table.seats.every((s) => s.seat === seat || s.kind === "bot");
}

async function fetchRanking(seq) {
  if (ranking?.seq === seq) return ranking;
  if (asking?.seq === seq) return asking.promise;
  const url = `/api/tables/${encodeURIComponent(page.code)}/hint?token=${encodeURIComponent(page.token())}`;
  const promise = getJSON(url).then((answer) => {
    ranking = { seq: answer.seq, moves: answer.moves };
    return ranking;
  }).finally(() => {
    asking = null;
  });
  asking = { seq, promise };
  return promise;
}

function moveText(card, captured) {
  return captured.length ? `${card}:${captured.join("+")}` : card;
}

async function showHints() {
  const state = page.state();
  const panel = $("hint-panel");
  try {
    const found = await fetchRanking(state.seq);
    if (page.state().seq !== found.seq) return;
    panel.replaceChildren(el("p", { class: "hint", text: t("hint_title") }),
      el("ol", {}, ...found.moves.map((m) => el("li", { "data-move": m.move },
        moveWords(m.move), ` ${m.value > 0 ? "+" : ""}${m.value.toFixed(1)}`))));
    panel.hidden = false;
  } catch (error) {
    panel.replaceChildren(el("p", { class: "hint", text: error.message }));
    panel.hidden = false;
  }
}

function coachOn() {
  return localStorage.getItem(COACH_KEY) === "on";
}

/** Redraws the hint button and the coach after every state (call from the page's render). */
export function renderCoach(previous) {
  const state = page.state();
  const ok = allowed(state);
  $("coach-controls").hidden = !ok;
  $("hint-button").hidden = !ok || !page.myTurn();
  if (!previous || previous.seq !== state.seq) $("hint-panel").hidden = true;
  if (!ok) return;
  const mine = page.mySeat();
  const play = state.last_play;
  if (coachOn() && previous && play && play.seat === mine && ranking && ranking.seq === state.seq - 1) {
    const played = moveText(play.card, play.captured);
    const best = ranking.moves[0];
    const value = ranking.moves.find((m) => m.move === played)?.value;
    const note = $("coach-note");
    if (value !== undefined && best.value - value >= BLUNDER) {
      note.replaceChildren(...(() => {
        const [before, after = ""] = t("coach_blunder", { move: "\u0000" }).split("\u0000");
        return [before, moveWords(best.move), after];
      })());
      note.hidden = false;
    } else {
      note.hidden = true;
    }
  }
  // The coach looks at the player's choices before the play, as the analysis would.
  if (coachOn() && page.myTurn() && ranking?.seq !== state.seq) fetchRanking(state.seq).catch(() => {});
}

/** Wires the buttons; `hooks` give the page's code, token, state and turn. */
export function setupCoach(hooks) {
  page = hooks;
  $("hint-button").addEventListener("click", showHints);
  const toggle = $("coach-mode");
  toggle.checked = coachOn();
  toggle.addEventListener("change", () => {
    localStorage.setItem(COACH_KEY, toggle.checked ? "on" : "off");
    if (!toggle.checked) $("coach-note").hidden = true;
    if (page.state()) renderCoach(null);
  });
}
