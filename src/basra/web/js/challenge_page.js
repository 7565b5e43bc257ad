// A challenge's page (/challenge/{id}), where an open challenge's link leads: who offers
// what game, and whether it is still open. A logged-in player it is for (anyone, for an
// open one) may accept it and goes to the table; the one it was made to may also decline
// it. Its sender sees the link to share and may cancel it; when someone accepts, the
// sender's page goes to the table at once (the seat's token comes in a notification).
// A guest is asked to log in first. Data: GET /api/challenge/{id}.

import { $, el } from "./dom.js";
import { getJSON } from "./api.js";
import { accountName, redrawAccount, setupAccount } from "./account.js";
import { errorKey, setupLang, t } from "./i18n.js";
import { acceptChallenge, cancelChallenge, declineChallenge, gameText, reasonSelect, reasonText, tableUrl } from "./challenges.js";
import { notificationTable, onNotification } from "./notifications.js";

const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");
const same = (a, b) => Boolean(a && b) && a.toLocaleLowerCase() === b.toLocaleLowerCase();

let challenge = null;
let error = null;

function refusalText(refusal) {
  const key = errorKey(refusal);
  return key ? t(key, refusal.params) : refusal.message;
}

function stateText() {
  switch (challenge.status) {
    case "pending": return t("challenge_state_pending");
    case "accepted": return t("challenge_state_accepted");
    case "declined": return t("challenge_state_declined", { reason: reasonText(challenge.reason) });
    case "cancelled": return t("challenge_state_cancelled");
    default: return t("challenge_state_expired");
  }
}

function button(text, props, onClick) {
  const node = el("button", { type: "button", class: "btn", ...props, text });
  node.addEventListener("click", onClick);
  return node;
}

async function act(what) {
  error = null;
  try {
    if (what === "accept") {
      await acceptChallenge(challenge.id);
      return;
    }
    challenge = what === "cancel" ? await cancelChallenge(challenge.id)
      : await declineChallenge(challenge.id, $("decline-reason").value);
  } catch (refusal) {
    error = refusalText(refusal);
    await load();
  }
  render();
}

function actions() {
  const me = accountName();
  const open = challenge.status === "pending";
  if (!open) return [];
  if (!me) return [el("p", { class: "hint", text: t("challenge_login_to_accept") })];
  if (same(me, challenge.from)) return [button(t("challenge_cancel"), { id: "cancel-challenge" }, () => act("cancel"))];
  if (challenge.to && !same(me, challenge.to)) return [el("p", { class: "hint", text: t("challenge_for_another") })];
  const list = [button(t("challenge_accept"), { id: "accept-challenge", class: "btn btn-primary" }, () => act("accept"))];
  if (challenge.to) {
    const select = reasonSelect("decline-reason");
    select.setAttribute("aria-label", t("challenge_reason_label"));
    list.push(select, button(t("challenge_decline"), { id: "decline-challenge" }, () => act("decline")));
  }
  return list;
}

function render() {
  if (!challenge) return;
  $("challenge-panel").hidden = false;
  $("challenge-who").textContent = challenge.to
    ? t("challenge_from_to", { from: challenge.from ?? "?", to: challenge.to })
    : t("challenge_from_anyone", { from: challenge.from ?? "?" });
  $("challenge-game").textContent = gameText(challenge);
  $("challenge-state").textContent = stateText();
  $("challenge-state").dataset.status = challenge.status;
  const sender = same(accountName(), challenge.from);
  $("challenge-share").hidden = !(sender && !challenge.to && challenge.status === "pending");
  $("challenge-url").value = `${location.origin}/challenge/${challenge.id}`;
  const list = actions();
  if (challenge.status === "accepted" && challenge.table) {
    list.push(el("a", { class: "btn btn-primary", href: tableUrl({ table: challenge.table }), text: t("challenge_go_to_table") }));
  }
  $("challenge-actions").replaceChildren(...list);
  $("alert").textContent = error ?? "";
}

async function load() {
  try {
    challenge = await getJSON(`/api/challenge/${encodeURIComponent(id)}`);
  } catch (refusal) {
    error = refusalText(refusal);
    $("alert").textContent = error;
    return;
  }
  render();
}

/** This challenge's answer, while the page is open: accepted goes to the table. */
function arrived(notification) {
  const payload = notification.payload ?? {};
  const about = payload.challenge ?? payload;
  if (!challenge || about.id !== challenge.id) return false;
  if (notification.kind === "challenge_accepted") {
    const table = notificationTable(notification);
    if (table) location.assign(tableUrl(table)); // (its seat's token is kept already)
    return true;
  }
  load();
  return false;
}

async function copyLink() {
  const input = $("challenge-url");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  const copy = $("challenge-url-copy");
  copy.textContent = t("copied");
  setTimeout(() => { copy.textContent = t("copy_link"); }, 1500);
}

function init() {
  setupLang(() => {
    render();
    redrawAccount();
  });
  $("challenge-url-copy").addEventListener("click", copyLink);
  onNotification(arrived);
  setupAccount(() => load());
}

init();
