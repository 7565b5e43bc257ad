// Hints and the coach at a table: only in unrated games against the computer, for the
// seated player. "Hint" shows the computer's ranking of the player's moves in a panel of
// its own (beside the hand, under it on a phone), each valued in signed points: the
// deal's expected margin (your points minus your opponents') if you play it, as the
// analysis computes it. The coach, when switched on, says right after a play that it was
// a blunder (10 points or more worse than the best move, as the analysis labels it).

import { $, el } from "./dom.js";
import { getJSON } from "./api.js";
import { t } from "./i18n.js";
import { moveWords } from "./moves.js";

const COACH_KEY = "basra.coach";
const BLUNDER = 10;

let page = null; // { code, token(), state(), mySeat(), myTurn(), rated() }
let ranking = null; // { seq, exact, moves } for the player's current turn
let asking = null;

/** Whether hints may be given here: a seated player, an unrated table, computers only. */
function allowed(state) {
  const seat = page.mySeat();
  if (!state || seat === null || page.rated() || !page.token()) return false;
  if (state.result || state.table.status !== "playing") return false; // the match is over
  return state.table.seats.every((s) => s.seat === seat || s.kind === "bot");
}

async function fetchRanking(seq) {
  if (ranking?.seq === seq) return ranking;
  if (asking?.seq === seq) return asking.promise;
  const url = `/api/tables/${encodeURIComponent(page.code)}/hint?token=${encodeURIComponent(page.token())}`;
  const promise = getJSON(url).then((answer) => {
    ranking = { seq: answer.seq, exact: Boolean(answer.exact), moves: answer.moves };
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

const ONE_DECIMAL = { minimumFractionDigits: 1, maximumFractionDigits: 1 };

/** A move's value as the panel writes it: "+3.2 points", "−1.5 points", "0.0 points". */
export function hintValue(value) {
  const tenths = Math.sign(value) * Math.round(Math.abs(value) * 10); // -13.55 is −13.6
  const key = tenths > 0 ? "hint_gain" : tenths < 0 ? "hint_loss" : "hint_even";
  return t(key, { n: Math.abs(tenths) / 10 }, ONE_DECIMAL);
}

function hintHead() {
  const close = el("button", { type: "button", class: "hint-close", "aria-label": t("close"), title: t("close") },
    el("span", { "aria-hidden": "true", text: "×" }));
  close.addEventListener("click", hideHints);
  return el("div", { class: "hint-head" }, el("h2", { id: "hint-title", class: "hint-title", text: t("hint_title") }), close);
}

function hintList(found) {
  const best = found.moves[0]?.value;
  return el("ol", { class: "hint-moves" }, ...found.moves.map((m) => {
    const tenths = Math.round(Math.abs(m.value) * 10);
    const sign = !tenths ? "even" : m.value > 0 ? "gain" : "loss";
    return el("li", { "data-move": m.move, "data-value": String(m.value), class: m.value === best ? "best" : "" },
      el("span", { class: "hint-move" }, moveWords(m.move)),
      el("span", { class: `hint-value ${sign}` }, hintValue(m.value)));
  }));
}

function hideHints() {
  $("hint-panel").hidden = true;
  if ($("hint-button").checkVisibility()) $("hint-button").focus();
}

/** Puts the panel where it shows without covering the table, and brings it into view. */
function openPanel(panel) {
  panel.hidden = false;
  panel.scrollIntoView({ block: "nearest" });
}

/** The panel's card: its title and close button, then `parts`. */
function fillCard(...parts) {
  $("hint-panel").replaceChildren(el("div", { class: "hint-card" }, hintHead(), ...parts));
}

function fillPanel(found) {
  fillCard(el("p", { class: "hint-explain", text: t(found.exact ? "hint_explain_exact" : "hint_explain") }),
    hintList(found));
}

async function showHints() {
  const state = page.state();
  const panel = $("hint-panel");
  try {
    const found = await fetchRanking(state.seq);
    if (page.state().seq !== found.seq) return;
    fillPanel(found);
  } catch (error) {
    fillCard(el("p", { class: "hint-explain", text: error.message }));
  }
  openPanel(panel);
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
  const panel = $("hint-panel");
  const again = !previous && !panel.hidden && ranking?.seq === state.seq; // a new language
  if (again && ok) fillPanel(ranking);
  else if (!ok || !previous || previous.seq !== state.seq) panel.hidden = true;
  if (!ok) {
    $("coach-note").hidden = true;
    return;
  }
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
