// Play online, in the lobby: a seek over one WebSocket (/ws/seek), docs/web-protocol.md.
//
// The form chooses the variant, the number of players and rated or casual (rated only
// for a logged-in player; a guest is told why). While the server looks for players the
// panel shows the seconds waited and the rating range; Cancel closes the socket, which
// cancels the seek; after 20 s the player may ask for the computer in the empty seats.
// When paired, the seat token is stored as after joining a table, and the page goes there.

import { $, el } from "./dom.js";
import { storeToken } from "./api.js";
import { errorKey, t } from "./i18n.js";
import { variantName } from "./matches.js";

const COMPUTER_AFTER = 20; // seconds of waiting before the computer may fill the seats

let variants = [];
let loggedIn = false;
let socket = null;
let waiting = null; // { seconds, range } while a seek is open
let error = null; // [i18n key] or { text }
let cancelled = false;
let chosenRated = null; // what the player picked, kept across log-ins

function fillSelect(select, items, selected) {
  select.replaceChildren(...items.map(([value, text]) => el("option", { value, text })));
  if (items.some(([value]) => String(value) === String(selected))) select.value = String(selected);
}

function currentVariant() {
  return variants.find((v) => v.name === $("online-variant").value) ?? variants[0];
}

function renderChoices() {
  if (variants.length) {
    fillSelect($("online-variant"), variants.map((v) => [v.name, variantName(v.name)]), $("online-variant").value || "egyptian");
    const variant = currentVariant();
    fillSelect($("online-players"), variant.players.map((n) => [n, String(n)]), $("online-players").value || 2);
  }
  const rated = $("online-rated");
  rated.disabled = !loggedIn;
  rated.checked = loggedIn && chosenRated !== false;
  $("online-casual").checked = !rated.checked;
  $("online-rated-hint").textContent = loggedIn ? t(rated.checked ? "rated_hint" : "casual_hint") : t("rated_guest_hint");
  $("online-rated-hint").classList.toggle("guest-note", !loggedIn);
}

function renderWaiting() {
  const open = waiting !== null;
  $("online-form").hidden = open;
  $("online-waiting").hidden = !open;
  if (open) {
    $("online-seconds").textContent = t("waited_n", { n: waiting.seconds });
    $("online-range").textContent = waiting.range ? t("rating_range_n", { n: waiting.range }) : "";
    $("online-range").hidden = !waiting.range;
    const late = waiting.seconds >= COMPUTER_AFTER;
    $("online-computer").hidden = !late;
    $("online-computer-hint").hidden = late;
  }
  const box = $("online-error");
  box.textContent = !error ? "" : Array.isArray(error) ? t(...error) : error.text;
  box.hidden = !error;
}

function seekUrl(rated) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const query = new URLSearchParams({
    variant: $("online-variant").value || "egyptian",
    players: $("online-players").value || "2",
    rated: rated ? "1" : "0",
  });
  const name = $("player-name")?.value.trim();
  if (!rated && name) query.set("name", name);
  return `${scheme}://${location.host}/ws/seek?${query}`;
}

/** A refusal of the seek socket: [key, params] by its code, else the server's words. */
function serverError(message) {
  const key = errorKey(message);
  const params = { ...(message.params ?? {}) };
  if (!("n" in params) && "seconds" in params) params.n = Number(params.seconds); // a wait
  if (key) return [key, params];
  return message.message ? { text: message.message } : ["error.server_error", {}];
}

function startSeek(event) {
  event.preventDefault();
  if (socket) return;
  error = null;
  cancelled = false;
  const rated = loggedIn && $("online-rated").checked;
  const ws = new WebSocket(seekUrl(rated));
  socket = ws;
  waiting = { seconds: 0, range: 0 };
  renderWaiting();
  $("online-cancel").focus();
  let paired = false;
  ws.addEventListener("message", (message) => {
    let data;
    try {
      data = JSON.parse(message.data);
    } catch {
      return;
    }
    if (data.type === "waiting") {
      waiting = { seconds: Number(data.seconds) || 0, range: Number(data.range) || 0 };
      renderWaiting();
    } else if (data.type === "paired") {
      paired = true;
      storeToken(data.table, data.seat, data.token);
      $("online-seconds").textContent = t("paired_going");
      location.assign(data.url || `/t/${encodeURIComponent(data.table)}`);
    } else if (data.type === "error") {
      error = serverError(data);
      renderWaiting();
      // A refused call for the computer leaves the seek open; anything else ends it.
      if (data.code !== "too_early") $("online-error").focus();
    }
  });
  ws.addEventListener("close", () => {
    if (socket !== ws || paired) return;
    socket = null;
    waiting = null;
    if (!cancelled && !error) error = ["err_seek_lost"];
    renderWaiting();
    if (error) $("online-error").focus();
    else $("online-start").focus();
  });
}

function cancelSeek() {
  cancelled = true;
  error = null;
  const ws = socket;
  socket = null;
  waiting = null;
  if (ws) ws.close();
  renderWaiting();
  $("online-start").focus();
}

function askComputer() {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "computer" }));
}

/** Redraws the panel in the current language. */
export function redrawOnline() {
  renderChoices();
  renderWaiting();
}

/** Whether rated play is offered: after a log-in or log-out. */
export function setOnlineAccount(name) {
  loggedIn = Boolean(name);
  renderChoices();
}

/** Wires the panel (its variants come with setOnlineVariants). */
export function setupOnline() {
  $("online-form").addEventListener("submit", startSeek);
  $("online-variant").addEventListener("change", () => {
    $("online-players").value = "";
    renderChoices();
  });
  for (const radio of [$("online-rated"), $("online-casual")]) {
    radio.addEventListener("change", () => {
      chosenRated = $("online-rated").checked;
      renderChoices();
    });
  }
  $("online-cancel").addEventListener("click", cancelSeek);
  $("online-computer").addEventListener("click", askComputer);
  addEventListener("pagehide", () => socket?.close());
  redrawOnline();
}

/** The variants to offer: /api/variants. */
export function setOnlineVariants(variantList) {
  variants = variantList;
  renderChoices();
  // A table's New game after a rated result comes back here as /?variant=…&players=…#online.
  const asked = new URLSearchParams(location.search);
  if (asked.get("variant") && variants.some((v) => v.name === asked.get("variant"))) {
    $("online-variant").value = asked.get("variant");
    $("online-players").value = "";
    renderChoices();
    if (asked.get("players")) $("online-players").value = asked.get("players");
    renderChoices();
  }
}
