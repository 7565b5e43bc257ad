// A logged-in player's notifications on every page (docs/api.md, "Notifications"): the
// header's inbox link with the number unread, and a toast for each new one, with a sound
// when sounds are on.
//
// They come over GET /api/notifications/stream: newline-delimited JSON read from the
// fetch's body line by line ({"type": "hello", "unread"} first, then each notification,
// and {"type": "ping"} every 10 s, which also keeps the session counted as online). A
// stream that ends, fails or stays silent is opened again after a growing wait.
//
// A challenge's toast accepts it (and goes to the table) or declines it with a reason;
// "challenge_accepted" carries the challenger's own seat token: it is stored at once, and
// the toast offers the table. A page may take a notification itself (onNotification: a
// listener that answers true), and then shows no toast: the inbox, a challenge's page and
// the challenge form waiting for an answer go to the table at once.

import { $, el } from "./dom.js";
import { ApiError } from "./api.js";
import { t } from "./i18n.js";
import { playSound } from "./sound.js";
import { acceptChallenge, declineChallenge, gameText, keepSeat, markRead, reasonSelect, reasonText, tableUrl } from "./challenges.js";

const STREAM = "/api/notifications/stream";
const SILENT_MS = 30000; // pings come every 10 s: a stream silent this long is dead
const FIRST_WAIT_MS = 1000;
const LONGEST_WAIT_MS = 30000;
const MOST_TOASTS = 3;
const SOUNDING = new Set(["challenge", "challenge_accepted", "table_invite"]);

let running = false;
let controller = null;
let unread = 0;
let allRead = false; // the inbox is open: it reads each one as it comes
let toasts = []; // [{ notification, declining, error }] newest last
const shown = new Set(); // ids of the toasts drawn once already (they slide in only once)
const listeners = new Set();

/** Calls `listener(notification)` for each new one; a listener that answers true has
 * shown it itself (no toast). Returns a function that stops the calls. */
export function onNotification(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** How many notifications are unread, as last known. */
export function unreadCount() {
  return unread;
}

/** Sets the number unread the header shows (after the inbox marked them read). */
export function setUnread(n) {
  unread = allRead ? 0 : Math.max(0, Number(n) || 0);
  const link = $("inbox-link");
  if (link) fillInboxLink(link);
}

function fillInboxLink(link) {
  const label = unread ? t("inbox_unread", { n: unread }) : t("inbox_title");
  link.setAttribute("aria-label", label);
  link.title = label;
  link.dataset.unread = String(unread);
  const badge = link.querySelector(".inbox-badge");
  badge.textContent = unread > 99 ? "99+" : String(unread);
  badge.hidden = !unread;
}

/** The page reads every notification as it comes (the inbox): none is unread. */
export function readEverything() {
  allRead = true;
  setUnread(0);
}

/** The header's link to the inbox: a bell, and the number unread on it. */
export function inboxLink() {
  const bell = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  bell.setAttribute("viewBox", "0 0 24 24");
  bell.setAttribute("class", "bell-icon");
  bell.setAttribute("aria-hidden", "true");
  bell.setAttribute("focusable", "false");
  const shape = document.createElementNS("http://www.w3.org/2000/svg", "path");
  shape.setAttribute("d", "M12 3a6 6 0 0 0-6 6v3.5L4.5 15v1.5h15V15L18 12.5V9a6 6 0 0 0-6-6Zm-2.2 15a2.3 2.3 0 0 0 4.4 0Z");
  shape.setAttribute("fill", "currentColor");
  bell.append(shape);
  const link = el("a", { id: "inbox-link", class: "btn btn-small btn-ghost inbox-link", href: "/inbox" },
    bell, el("span", { class: "inbox-badge", "data-testid": "inbox-badge" }));
  fillInboxLink(link);
  return link;
}

// -- the stream --------------------------------------------------------------------------

/** Opens the stream (once logged in); nothing if it is open already. */
export function startNotifications() {
  if (running) return;
  running = true;
  listen();
}

/** Closes the stream (after logging out) and forgets the toasts. */
export function stopNotifications() {
  running = false;
  controller?.abort();
  controller = null;
  toasts = [];
  renderToasts();
  setUnread(0);
}

const pause = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

async function listen() {
  let wait = FIRST_WAIT_MS;
  while (running) {
    const opened = new AbortController();
    controller = opened;
    let silence = null;
    const quiet = () => {
      clearTimeout(silence);
      silence = setTimeout(() => opened.abort(), SILENT_MS);
    };
    try {
      quiet();
      const response = await fetch(STREAM, { headers: { Accept: "application/x-ndjson" }, signal: opened.signal, cache: "no-store" });
      if (response.status === 401) { // logged out elsewhere: the header will say so
        running = false;
        break;
      }
      if (!response.ok || !response.body) throw new Error(`stream ${response.status}`);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        quiet();
        buffer += value;
        let end = buffer.indexOf("\n");
        while (end >= 0) {
          const line = buffer.slice(0, end).trim();
          buffer = buffer.slice(end + 1);
          if (line) received(line);
          wait = FIRST_WAIT_MS; // a line came: the next failure waits little again
          end = buffer.indexOf("\n");
        }
      }
    } catch {
      // A network failure, an aborted or silent stream: open it again below.
    } finally {
      clearTimeout(silence);
      delete document.body.dataset.notifications;
    }
    if (!running || controller !== opened) break;
    await pause(wait * (0.75 + Math.random() / 2));
    wait = Math.min(wait * 2, LONGEST_WAIT_MS);
  }
}

function received(line) {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.type === "hello") {
    setUnread(message.unread);
    document.body.dataset.notifications = "listening"; // (a testing hook, like data-sounds)
  }
  else if (message.type === "notification") arrived(message);
}

function arrived(notification) {
  if (!notification.read) setUnread(unread + 1);
  if (notification.kind === "challenge_accepted") keepSeat(notification.payload);
  let taken = false;
  for (const listener of [...listeners]) {
    try {
      taken = listener(notification) === true || taken;
    } catch {
      // One page's listener failing does not stop the others.
    }
  }
  if (SOUNDING.has(notification.kind)) playSound("notify");
  if (!taken) {
    toasts = [...toasts.filter((toast) => toast.notification.id !== notification.id), { notification, declining: false, error: null }]
      .slice(-MOST_TOASTS);
    renderToasts();
  }
}

// -- what a notification says ------------------------------------------------------------

/** A notification in one line of the page's language. */
export function notificationText(notification) {
  const payload = notification.payload ?? {};
  const challenge = payload.challenge ?? payload;
  switch (notification.kind) {
    case "challenge":
      return t("notify_challenge", { name: challenge.from ?? "?", game: gameText(challenge) });
    case "challenge_accepted":
      return t("notify_accepted", { name: payload.by ?? challenge.to ?? "?" });
    case "challenge_declined":
      return t("notify_declined", { name: challenge.to ?? "?", reason: reasonText(challenge.reason) });
    case "challenge_cancelled":
      return t("notify_cancelled", { name: challenge.from ?? "?" });
    case "table_invite":
      return t("notify_table_invite", { name: challenge.from ?? "?", game: gameText(challenge) });
    case "tournament_start":
      return t("notify_tournament_start", { name: payload.player ?? "?", tournament: payload.name ?? "" });
    case "moderation":
      return t("notify_moderation", { action: t(`mod_action_${payload.action}`), reason: payload.reason ?? "" });
    default:
      return typeof payload.text === "string" && payload.text ? payload.text : t("notify_other");
  }
}

/** The table a notification leads to ({table, seat, token, url}), or null. */
export function notificationTable(notification) {
  const payload = notification.payload ?? {};
  if (!["challenge_accepted", "table_invite"].includes(notification.kind) || typeof payload.table !== "string") return null;
  return payload;
}

// -- toasts ------------------------------------------------------------------------------

function toastBox() {
  let box = $("toasts");
  if (!box) {
    box = el("section", { id: "toasts", class: "toasts", "aria-live": "polite", "data-testid": "toasts" });
    document.body.append(box);
  }
  box.setAttribute("aria-label", t("notify_region"));
  // Just under the header, however many rows it takes (set through the CSSOM: the pages
  // allow no inline styles).
  const header = document.querySelector(".topbar");
  const top = header ? Math.max(8, header.getBoundingClientRect().bottom + 8) : 8;
  box.style.setProperty("--toasts-top", `${Math.round(top)}px`);
  return box;
}

function dismiss(id) {
  toasts = toasts.filter((toast) => toast.notification.id !== id);
  renderToasts();
}

function failed(toast, error) {
  toast.error = error instanceof ApiError ? error.message : t("error.server_error");
  renderToasts();
}

async function accept(toast) {
  try {
    await markRead([toast.notification.id]).catch(() => null);
    await acceptChallenge(toast.notification.payload.id);
  } catch (error) {
    failed(toast, error);
  }
}

async function decline(toast, reason) {
  try {
    await declineChallenge(toast.notification.payload.id, reason);
    setUnread(await markRead([toast.notification.id]));
    dismiss(toast.notification.id);
  } catch (error) {
    failed(toast, error);
  }
}

function button(text, onClick, className = "btn btn-small") {
  const node = el("button", { type: "button", class: className, text });
  node.addEventListener("click", onClick);
  return node;
}

function toastActions(toast) {
  const { notification } = toast;
  const actions = el("div", { class: "toast-actions" });
  if (notification.kind === "challenge") {
    if (toast.declining) {
      const select = reasonSelect(`toast-reason-${notification.id}`);
      select.setAttribute("aria-label", t("challenge_reason_label"));
      actions.append(select,
        button(t("challenge_decline"), () => decline(toast, select.value)),
        button(t("cancel"), () => { toast.declining = false; renderToasts(); }));
    } else {
      actions.append(button(t("challenge_accept"), () => accept(toast), "btn btn-small btn-primary"),
        button(t("challenge_decline"), () => { toast.declining = true; renderToasts(); }));
    }
  }
  const table = notificationTable(notification);
  if (table) {
    actions.append(el("a", { class: "btn btn-small btn-primary", href: tableUrl(table), text: t("challenge_go_to_table") }));
  }
  if (!actions.childElementCount) {
    actions.append(el("a", { class: "btn btn-small", href: "/inbox", text: t("inbox_open") }));
  }
  return actions;
}

function renderToasts() {
  if (!toasts.length && !$("toasts")) return;
  const box = toastBox();
  box.replaceChildren(...toasts.map((toast) => {
    const { notification } = toast;
    const close = el("button", { type: "button", class: "toast-close", "aria-label": t("close"), title: t("close"), text: "×" });
    close.addEventListener("click", () => dismiss(notification.id));
    const node = el("div", { class: shown.has(notification.id) ? "toast" : "toast toast-new", "data-kind": notification.kind, "data-notification": String(notification.id), role: "group", "aria-label": t("notify_one") },
      el("p", { class: "toast-text", text: notificationText(notification) }), toastActions(toast), close);
    if (toast.error) node.append(el("p", { class: "field-error", role: "alert", text: toast.error }));
    shown.add(notification.id);
    return node;
  }));
}

/** Redraws the toasts and the inbox link in the page's language. */
export function redrawNotifications() {
  renderToasts();
  setUnread(unread);
}
