// The inbox (/inbox): one's notifications, newest first. A challenge still open has Accept
// and Decline with a reason; an accepted challenge or an invitation leads to its table;
// the others are a line of text. Above them, one's own challenges waiting for an answer,
// each to cancel (an open one with its link). Opening the inbox marks everything read.
//
// New notifications come in while the page is open (notifications.js): they are listed
// at once instead of shown as toasts, and when one's own challenge is accepted the page
// goes to the table at once.
// Data: GET /api/notifications, GET /api/challenges, POST /api/notifications/read.

import { $, el } from "./dom.js";
import { getJSON } from "./api.js";
import { accountName, profileUrl, redrawAccount, setupAccount } from "./account.js";
import { errorKey, formatMoment, setupLang, t } from "./i18n.js";
import { acceptChallenge, cancelChallenge, declineChallenge, gameText, keepSeat, markRead, reasonSelect, tableUrl } from "./challenges.js";
import { notificationTable, notificationText, onNotification, readEverything } from "./notifications.js";

let notifications = null; // newest first, or null before they came
let incoming = new Set(); // ids of challenges to this player still open
let outgoing = []; // this player's challenges waiting for an answer
const errors = new Map(); // notification id or challenge id -> text

function refusalText(error) {
  const key = errorKey(error);
  return key ? t(key, error.params) : error.message;
}

function button(text, props, onClick) {
  const node = el("button", { type: "button", class: "btn btn-small", ...props, text });
  node.addEventListener("click", onClick);
  return node;
}

function challengeActions(notification) {
  const challenge = notification.payload ?? {};
  if (!incoming.has(challenge.id)) {
    return [el("span", { class: "item-sub", text: t("challenge_no_longer_open") })];
  }
  const select = reasonSelect(`reason-${notification.id}`);
  select.setAttribute("aria-label", t("challenge_reason_label"));
  return [
    button(t("challenge_accept"), { class: "btn btn-small btn-primary", "data-accept": challenge.id }, async () => {
      try {
        await acceptChallenge(challenge.id);
      } catch (error) {
        errors.set(notification.id, refusalText(error));
        await loadChallenges();
      }
    }),
    select,
    button(t("challenge_decline"), { "data-decline": challenge.id }, async () => {
      try {
        await declineChallenge(challenge.id, select.value);
      } catch (error) {
        errors.set(notification.id, refusalText(error));
      }
      await loadChallenges();
    }),
  ];
}

function item(notification) {
  const node = el("li", { class: `list-item inbox-item${notification.read ? "" : " unread"}`, "data-kind": notification.kind, "data-notification": String(notification.id) },
    el("span", { class: "item-main" },
      el("span", { class: "inbox-text", text: notificationText(notification) }),
      el("span", { class: "item-sub", text: formatMoment(notification.created_at) })));
  const actions = el("span", { class: "actions" });
  if (notification.kind === "challenge") actions.append(...challengeActions(notification));
  const table = notificationTable(notification);
  if (table) {
    const go = el("a", { class: "btn btn-small btn-primary", href: tableUrl(table), text: t("challenge_go_to_table") });
    go.addEventListener("click", () => keepSeat(table)); // (an invitation has no seat yet)
    actions.append(go);
  }
  if (notification.kind === "tournament_start" && typeof notification.payload?.url === "string") {
    actions.append(el("a", { class: "btn btn-small", href: notification.payload.url, text: t("notify_open_tournament") }));
  }
  if (actions.childElementCount) node.append(actions);
  const error = errors.get(notification.id);
  if (error) node.append(el("p", { class: "field-error", role: "alert", text: error }));
  return node;
}

function outgoingItem(challenge) {
  const who = challenge.to
    ? el("a", { href: profileUrl(challenge.to) }, el("bdi", { text: challenge.to }))
    : el("a", { href: challenge.url, text: t("challenge_to_anyone") });
  const node = el("li", { class: "list-item", "data-challenge": challenge.id },
    el("span", { class: "item-main" }, el("span", { class: "inbox-text" }, t("challenge_to"), " ", who),
      el("span", { class: "item-sub", text: gameText(challenge) })),
    el("span", { class: "actions" }, button(t("challenge_cancel"), { "data-cancel": challenge.id }, async () => {
      try {
        await cancelChallenge(challenge.id);
      } catch (error) {
        errors.set(challenge.id, refusalText(error));
      }
      await loadChallenges();
    })));
  const error = errors.get(challenge.id);
  if (error) node.append(el("p", { class: "field-error", role: "alert", text: error }));
  return node;
}

function render() {
  const loggedIn = Boolean(accountName());
  $("inbox-panel").hidden = !loggedIn;
  $("outgoing-panel").hidden = !loggedIn || !outgoing.length;
  if (!loggedIn) {
    $("alert").textContent = t("inbox_login_needed");
    return;
  }
  $("outgoing").replaceChildren(...outgoing.map(outgoingItem));
  if (notifications) {
    $("inbox").replaceChildren(...(notifications.length ? notifications.map(item)
      : [el("li", { class: "empty", text: t("inbox_empty") })]));
  }
}

async function loadChallenges() {
  try {
    const pending = await getJSON("/api/challenges");
    incoming = new Set(pending.incoming.map((challenge) => challenge.id));
    outgoing = pending.outgoing;
  } catch (error) {
    $("alert").textContent = refusalText(error);
  }
  render();
}

async function load() {
  if (!accountName()) {
    render();
    return;
  }
  try {
    const [found] = await Promise.all([getJSON("/api/notifications"), loadChallenges()]);
    notifications = found.notifications;
    $("alert").textContent = "";
    render();
    if (found.unread) await markRead();
  } catch (error) {
    $("alert").textContent = refusalText(error);
  }
}

/** A notification that came while the page is open: listed here, not as a toast. */
function arrived(notification) {
  if (!notifications) return false;
  if (notification.kind === "challenge_accepted") {
    const table = notificationTable(notification);
    if (table) location.assign(tableUrl(table)); // (its seat's token is kept already)
  }
  notifications = [{ ...notification, read: false }, ...notifications.filter((n) => n.id !== notification.id)];
  loadChallenges();
  markRead([notification.id]).catch(() => {});
  return true;
}

function init() {
  setupLang(() => {
    render();
    redrawAccount();
  });
  onNotification(arrived);
  readEverything();
  setupAccount(() => {
    notifications = null;
    load();
  });
}

init();
