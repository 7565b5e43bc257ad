// The table's chat (docs/web-protocol.md, "Table chat"): quick phrases for everyone, typed
// messages only while the state's chat.free_text is on (every seated player allowed it),
// a consent switch for seated players, the watchers' own chat for watchers, and a mute
// button per player that hides that seat's messages on this screen (remembered per table).
// Every text goes in with textContent, never as HTML.

import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { openReport } from "./report.js";

export const PHRASES = ["good_game", "well_played", "good_luck", "thanks", "oops"];
export const MAX_TEXT = 200;
const KEPT = 100; // messages kept on screen

let send = () => false;
let nameOf = (seat) => String(seat);
let code = "";
let state = null;
let messages = [];
let unread = 0;
let muted = new Set();

const muteKey = () => `basra.mute.${code}`;

function loadMuted() {
  try {
    const seats = JSON.parse(localStorage.getItem(muteKey()));
    muted = new Set(Array.isArray(seats) ? seats.filter(Number.isInteger) : []);
  } catch {
    muted = new Set();
  }
}

function saveMuted() {
  localStorage.setItem(muteKey(), JSON.stringify([...muted]));
}

function mySeat() {
  return state?.you?.seat ?? null;
}

function isOpen() {
  return $("chat").dataset.open === "true";
}

/** A sender's name as the page shows it: a seat by its player, a watcher by "Watcher N". */
function senderName(from) {
  if (from.seat !== undefined && from.seat !== null) return nameOf(from.seat);
  const number = /^Watcher (\d+)$/.exec(from.name ?? "");
  return number ? t("watcher_n", { n: number[1] }) : from.name || t("watcher_n", { n: "?" });
}

function line(message) {
  const from = message.from ?? {};
  const mine = from.seat !== undefined && from.seat === mySeat();
  const body = message.phrase
    ? el("span", { class: "chat-phrase", text: t(`phrase_${message.phrase}`) })
    : el("span", { class: "chat-text", dir: "auto", text: message.text });
  const item = el("li", { class: `chat-line${mine ? " mine" : ""}${from.watcher ? " from-watcher" : ""}` },
    el("bdi", { class: "chat-from", text: senderName(from) }), ": ", body);
  if (from.seat !== undefined) item.dataset.seat = String(from.seat);
  if (from.seat !== undefined && from.seat !== null && !mine) {
    item.append(" ", el("button", {
      type: "button", class: "chat-report", "data-report-seat": String(from.seat),
      title: t("mod_report_name", { name: senderName(from) }), "aria-label": t("mod_report_name", { name: senderName(from) }), text: "⚑",
    }));
  }
  return item;
}

function visible(message) {
  const seat = message.from?.seat;
  return !(seat !== undefined && seat !== mySeat() && muted.has(seat));
}

function renderLog() {
  const shown = messages.filter(visible);
  const log = $("chat-log");
  log.replaceChildren(...(shown.length ? shown.map(line) : [el("li", { class: "chat-empty", text: t("no_messages") })]));
  log.scrollTop = log.scrollHeight;
}

function renderUnread() {
  const badge = $("chat-unread");
  badge.textContent = unread ? String(unread) : "";
  badge.hidden = !unread;
}

function renderControls() {
  const watcher = mySeat() === null;
  $("chat-title").textContent = t(watcher ? "chat_watchers" : "chat");
  $("chat-toggle-label").textContent = t(watcher ? "chat_watchers" : "chat");
  $("chat-watchers-hint").hidden = !watcher;
  const chat = state?.chat ?? { free_text: false, consent: [] };
  const consent = $("chat-consent");
  consent.closest(".check-row").hidden = watcher;
  consent.checked = !watcher && (chat.consent ?? []).includes(mySeat());
  const free = Boolean(chat.free_text);
  $("chat-input").disabled = !free;
  $("chat-send").disabled = !free;
  $("chat-free-hint").textContent = t(free ? "free_chat_on" : "free_chat_off");
  $("chat-phrases").replaceChildren(...PHRASES.map((phrase) =>
    el("button", { type: "button", class: "btn btn-small chat-phrase-button", "data-phrase": phrase, text: t(`phrase_${phrase}`) })));
  // A mute button for every other person seated at the table.
  const others = (state?.table?.seats ?? []).filter((s) => s.kind !== "bot" && s.seat !== mySeat());
  $("chat-mutes").replaceChildren(...others.flatMap((s) => {
    const on = muted.has(s.seat);
    const name = nameOf(s.seat);
    return [el("button", {
      type: "button", class: `btn btn-small chat-mute${on ? " on" : ""}`, "data-seat": String(s.seat),
      "aria-pressed": String(on), text: t(on ? "unmute_name" : "mute_name", { name }),
    }), el("button", {
      type: "button", class: "btn btn-small chat-report-seat", "data-report-seat": String(s.seat),
      text: t("mod_report_name", { name }),
    })];
  }));
}

/** Draws the chat for a new state (who is seated, whether free text is on). */
export function renderChat(newState) {
  state = newState;
  $("chat").hidden = !state;
  if (!state) return;
  renderControls();
  renderLog();
  renderUnread();
}

/** Takes a chat message from the socket. */
export function receiveChat(message) {
  if (!message.phrase && typeof message.text !== "string") return;
  if (message.phrase && !PHRASES.includes(message.phrase)) return;
  messages.push(message);
  if (messages.length > KEPT) messages = messages.slice(-KEPT);
  if (!isOpen() && visible(message) && message.from?.seat !== mySeat()) unread += 1;
  renderLog();
  renderUnread();
}

function setOpen(open) {
  $("chat").dataset.open = String(open);
  $("chat-toggle").setAttribute("aria-expanded", String(open));
  $("chat-body").hidden = !open;
  if (open) {
    unread = 0;
    renderUnread();
    renderLog();
  }
}

function submitText(event) {
  event.preventDefault();
  const input = $("chat-input");
  const text = input.value.trim().slice(0, MAX_TEXT);
  if (!text || input.disabled) return;
  if (send({ type: "chat", text })) input.value = "";
}

/**
 * Wires the chat of table `tableCode`: `sendMessage(message)` sends on the table's socket
 * (true if sent), `seatName(seat)` names a seat in the page's language.
 */
export function setupChat(tableCode, sendMessage, seatName) {
  code = tableCode;
  send = sendMessage;
  nameOf = seatName;
  loadMuted();
  $("chat-input").maxLength = MAX_TEXT;
  $("chat-toggle").addEventListener("click", () => setOpen(!isOpen()));
  $("chat-form").addEventListener("submit", submitText);
  $("chat-phrases").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-phrase]");
    if (button) send({ type: "chat", phrase: button.dataset.phrase });
  });
  $("chat-consent").addEventListener("change", (event) => {
    send({ type: "chat_consent", allow: event.target.checked });
  });
  const reportSeat = (event) => {
    const button = event.target.closest("button[data-report-seat]");
    if (!button) return false;
    const seat = Number(button.dataset.reportSeat);
    openReport({ table: code, seat, name: nameOf(seat) });
    return true;
  };
  $("chat-log").addEventListener("click", reportSeat);
  $("chat-mutes").addEventListener("click", (event) => {
    if (reportSeat(event)) return;
    const button = event.target.closest("button[data-seat]");
    if (!button) return;
    const seat = Number(button.dataset.seat);
    if (muted.has(seat)) muted.delete(seat);
    else muted.add(seat);
    saveMuted();
    renderControls();
    renderLog();
    $("chat-mutes").querySelector(`button[data-seat="${seat}"]`)?.focus();
  });
  setOpen(false);
}
