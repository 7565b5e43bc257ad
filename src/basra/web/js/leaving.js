// Leaving a table: the Lobby link, Resign and Abort (each confirmed first), the lines that
// say who resigned or aborted, New game and Lobby after the result, and the note that a
// table of computers pauses while nobody is there. table.js wires it with setupLeaving and
// calls renderLeaving after every state.

import { $, el } from "./dom.js";
import { errorText, t } from "./i18n.js";
import { postJSON, storeToken, storedName } from "./api.js";
import { tournamentOf } from "./tournament_return.js";

let page = null; // { send, state, mySeat, seatName, showAlert }
let confirming = null; // what the open dialog confirms: "leave" | "resign" | "abort"

/** Wires the buttons and the dialog; `page` gives the table page's state and helpers. */
export function setupLeaving(options) {
  page = options;
  $("leave-lobby").addEventListener("click", onLobby);
  $("resign").addEventListener("click", () => ask("resign"));
  $("abort").addEventListener("click", () => ask("abort"));
  $("leave-cancel").addEventListener("click", () => $("leave-dialog").close());
  $("leave-confirm").addEventListener("click", confirm);
  $("leave-dialog").addEventListener("close", () => {
    confirming = null;
  });
  for (const id of ["after-new-game", "aborted-new-game"]) $(id).addEventListener("click", newGame);
  $("aborted-rematch").addEventListener("click", () => page.send({ type: "rematch" }));
}

function current() {
  return page?.state() ?? null;
}

function seated() {
  return page?.mySeat() !== null && page?.mySeat() !== undefined;
}

function playing(state) {
  return state?.table?.status === "playing";
}

function iResigned(state) {
  return (state?.resigned ?? []).includes(page.mySeat());
}

/** The Lobby link: straight there, unless the player leaves a game they play in. */
function onLobby(event) {
  const state = current();
  if (!state || !seated() || !playing(state) || iResigned(state)) return;
  event.preventDefault();
  ask("leave");
}

function ask(what) {
  const state = current();
  if (!state) return;
  const rated = Boolean(state.table?.rated);
  const texts = {
    leave: ["leave_title", rated ? "leave_rated_text" : "leave_casual_text", "leave_confirm"],
    resign: ["resign_title", rated ? "resign_rated_text" : "resign_text", "resign_confirm"],
    abort: ["abort_title", rated ? "abort_rated_text" : "abort_text", "abort_confirm"],
  }[what];
  confirming = what;
  $("leave-title").textContent = t(texts[0]);
  $("leave-text").textContent = t(texts[1]);
  $("leave-confirm").textContent = t(texts[2]);
  $("leave-dialog").dataset.what = what;
  $("leave-dialog").showModal();
  $("leave-cancel").focus();
}

function confirm() {
  const what = confirming;
  $("leave-dialog").close();
  if (what === "leave") location.assign("/");
  else if (what === "resign" || what === "abort") page.send({ type: what });
}

/** A new table of the same settings, as the lobby would make it (a rated table: the seek). */
async function newGame() {
  const state = current();
  if (!state) return;
  const table = state.table;
  if (table.rated) {
    const query = new URLSearchParams({ variant: table.variant, players: String(table.players) });
    location.assign(`/?${query}#online`);
    return;
  }
  const name = storedName();
  const body = {
    variant: table.variant, players: table.players, rules: table.house_rules ?? {},
    seats: table.seats.map((s) => (s.kind === "bot" ? { kind: "bot", level: s.level } : { kind: "human" })),
    turn_seconds: table.turn_seconds, takeover_level: table.takeover_level,
    ...(table.open_stores === undefined ? {} : { open_stores: table.open_stores }),
  };
  if (name) body.name = name;
  try {
    const answer = await postJSON("/api/tables", body);
    if (answer.token) storeToken(answer.code, answer.seat, answer.token);
    location.assign(answer.url || `/t/${encodeURIComponent(answer.code)}`);
  } catch (error) {
    page.showAlert(errorText(error));
  }
}

/** The line for a resignation or an abort (who, in the page's words). */
function resignLine(state) {
  return (state.resigned ?? []).map((seat) =>
    seat === page.mySeat() ? t("resign_you") : t("resign_notice", { name: page.seatName(seat) })).join(" ");
}

/** What a notice of this module says, or null for the page's other notices. */
export function leavingNotice(message) {
  if (message.code === "resigned") {
    return message.seat === page?.mySeat() ? t("resign_you") : t("resign_notice", { name: page.seatName(message.seat) });
  }
  if (message.code === "aborted") {
    return message.seat === page?.mySeat() ? t("abort_you") : t("abort_notice", { name: page.seatName(message.seat) });
  }
  if (message.code === "play_resumed") return t("table_resumed");
  return null;
}

/** Draws the buttons, the lines and the panels for the current state. */
export function renderLeaving(state) {
  const mine = seated();
  const live = playing(state);
  $("resign").hidden = !(mine && live && !iResigned(state) && !state.can_abort);
  $("abort").hidden = !(mine && live && state.can_abort);
  if (iResigned(state)) $("away-panel").hidden = true; // the computer plays it to the end
  const seats = state.table?.seats ?? [];
  $("table-pause-note").hidden = !(live && seats.length && seats.every((s) => s.kind === "bot" || s.away));

  const line = $("resign-line");
  const text = state.resigned?.length ? resignLine(state) : "";
  line.textContent = text;
  line.hidden = !text || (!live && !state.result);

  // After the result: New game and Lobby beside Rematch.
  const after = $("after-result");
  if (after.parentElement !== $("rematch").parentElement) $("rematch").after(after);
  after.hidden = !state.result;
  const tournament = Boolean(tournamentOf(state)); // its way back replaces a new game
  $("after-new-game").hidden = tournament;
  const resultPanel = $("result");
  if (line.parentElement !== resultPanel && state.result) $("result-totals").after(line);
  else if (!state.result && line.parentElement !== $("leave-bar")) $("leave-bar").after(line);

  const aborted = state.aborted !== null && state.aborted !== undefined;
  $("aborted-panel").hidden = !aborted;
  $("felt").classList.toggle("aborted", aborted);
  if (aborted) {
    $("aborted-text").textContent = state.aborted === page.mySeat() ? t("abort_you") : t("abort_notice", { name: page.seatName(state.aborted) });
    $("aborted-rematch").hidden = !mine || tournament;
    $("aborted-new-game").hidden = tournament;
  }
}
