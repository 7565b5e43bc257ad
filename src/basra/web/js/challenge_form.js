// The challenge form, in a dialog (from a player's page or the following list): the
// variant, the players (for three or four, more people may be invited by name; the seats
// left empty are the computer's), rated or casual, and the turn timer. It challenges one
// player (POST /api/challenge/{name}) or makes a link anyone may accept (POST
// /api/challenge/open, shown to copy).
//
// Once sent, the dialog waits for the answer: when the challenge is accepted the seat
// token comes in a notification and the page goes to the table at once; a decline shows
// its reason; "Cancel challenge" takes it back.

import { $, el } from "./dom.js";
import { getJSON, postJSON } from "./api.js";
import { errorKey, t } from "./i18n.js";
import { variantName } from "./matches.js";
import { TURN_CHOICES, cancelChallenge, gameText, reasonText, tableUrl, timerText } from "./challenges.js";
import { notificationTable, onNotification } from "./notifications.js";

const DEFAULT_TURN = 60;

let variants = null; // GET /api/variants, once
let opponent = null; // the name challenged, or null for a link
let sent = null; // the challenge sent, while the dialog waits for its answer
let answer = null; // { key, params } of a decline or a cancel
let error = null;
let stopListening = () => {};

function field(id, labelKey, control, hintKey = null) {
  const box = el("div", { class: "field", "data-field": id },
    el("label", { for: id, "data-i18n": labelKey, text: t(labelKey) }), control);
  if (hintKey) box.append(el("p", { class: "hint", "data-i18n": hintKey, text: t(hintKey) }));
  return box;
}

function dialog() {
  let node = $("challenge-dialog");
  if (node) return node;
  const rated = el("fieldset", { class: "challenge-kind" },
    el("legend", { class: "visually-hidden", "data-i18n": "challenge_kind", text: t("challenge_kind") }),
    el("div", { class: "check-row" },
      el("input", { id: "challenge-casual", type: "radio", name: "rated", value: "0", checked: "" }),
      el("label", { for: "challenge-casual", "data-i18n": "casual", text: t("casual") }),
      el("input", { id: "challenge-rated", type: "radio", name: "rated", value: "1" }),
      el("label", { for: "challenge-rated", "data-i18n": "rated", text: t("rated") })));
  node = el("dialog", { id: "challenge-dialog", class: "dialog challenge-dialog", "aria-labelledby": "challenge-title" },
    el("form", { id: "challenge-form", class: "account-form", novalidate: "" },
      el("h2", { id: "challenge-title" }),
      el("div", { class: "form-grid" },
        field("challenge-variant", "variant", el("select", { id: "challenge-variant", name: "variant" })),
        field("challenge-players", "players", el("select", { id: "challenge-players", name: "players" })),
        field("challenge-timer", "challenge_timer", el("select", { id: "challenge-timer", name: "turn_seconds" }))),
      el("div", { id: "challenge-invites", class: "challenge-invites" }),
      rated,
      el("div", { class: "check-row" },
        el("input", { id: "challenge-open", type: "checkbox", name: "open" }),
        el("label", { for: "challenge-open", "data-i18n": "challenge_open_option", text: t("challenge_open_option") })),
      el("p", { id: "challenge-error", class: "form-error", role: "alert", tabindex: "-1", hidden: "" }),
      el("div", { class: "button-row" },
        el("button", { id: "challenge-send", type: "submit", class: "btn btn-primary" }),
        el("button", { type: "button", class: "btn", value: "cancel", "data-i18n": "cancel", text: t("cancel") }))),
    el("div", { id: "challenge-sent", class: "challenge-sent", hidden: "" },
      el("h2", { id: "challenge-sent-title" }),
      el("p", { id: "challenge-sent-game", class: "hint" }),
      el("div", { id: "challenge-link-box", class: "challenge-share", hidden: "" },
        el("label", { for: "challenge-link", class: "visually-hidden", "data-i18n": "challenge_link_label", text: t("challenge_link_label") }),
        el("input", { id: "challenge-link", type: "text", readonly: "", dir: "ltr" }),
        el("button", { id: "challenge-copy", type: "button", class: "btn btn-small", "data-i18n": "copy_link", text: t("copy_link") })),
      el("p", { id: "challenge-status", class: "challenge-status", role: "status" }),
      el("div", { class: "button-row" },
        el("button", { id: "challenge-cancel", type: "button", class: "btn", "data-i18n": "challenge_cancel", text: t("challenge_cancel") }),
        el("button", { id: "challenge-close", type: "button", class: "btn", "data-i18n": "close", text: t("close") }))));
  document.body.append(node);
  node.querySelector("button[value=cancel]").addEventListener("click", () => node.close());
  $("challenge-form").addEventListener("submit", send);
  $("challenge-variant").addEventListener("change", () => { fillPlayers(); renderInvites(); });
  $("challenge-players").addEventListener("change", renderInvites);
  $("challenge-open").addEventListener("change", renderForm);
  $("challenge-copy").addEventListener("click", copyLink);
  $("challenge-cancel").addEventListener("click", cancelSent);
  $("challenge-close").addEventListener("click", () => node.close());
  node.addEventListener("close", () => {
    stopListening();
    sent = null;
  });
  return node;
}

function fillSelect(select, items, selected) {
  select.replaceChildren(...items.map(([value, text]) => el("option", { value: String(value), text })));
  if (items.some(([value]) => String(value) === String(selected))) select.value = String(selected);
}

function chosenVariant() {
  return variants?.find((v) => v.name === $("challenge-variant").value) ?? variants?.[0] ?? null;
}

function fillPlayers() {
  const variant = chosenVariant();
  fillSelect($("challenge-players"), (variant?.players ?? [2]).map((n) => [n, n === 2 ? t("players_2") : t("players_n", { n })]),
    $("challenge-players").value || 2);
}

function renderInvites() {
  const more = Number($("challenge-players").value || 2) - 2;
  const box = $("challenge-invites");
  const typed = [...box.querySelectorAll("input")].map((input) => input.value);
  box.replaceChildren();
  if (more <= 0) return;
  box.append(el("p", { class: "hint", "data-i18n": "challenge_invite_hint", text: t("challenge_invite_hint") }));
  for (let i = 0; i < more; i++) {
    const id = `challenge-invite-${i}`;
    const input = el("input", { id, name: "invite", type: "text", maxlength: "20", autocomplete: "off", spellcheck: "false", dir: "auto" });
    input.value = typed[i] ?? "";
    box.append(field(id, "challenge_invite", input));
  }
}

function renderForm() {
  const open = !opponent || $("challenge-open").checked;
  $("challenge-title").textContent = open ? t("challenge_link_title") : t("challenge_title", { name: opponent });
  $("challenge-send").textContent = t(open ? "challenge_make_link" : "challenge_send");
  $("challenge-open").disabled = !opponent;
  $("challenge-open").checked = open;
  const box = $("challenge-error");
  box.textContent = error ?? "";
  box.hidden = !error;
}

function renderSent() {
  const waiting = Boolean(sent);
  $("challenge-form").hidden = waiting;
  $("challenge-sent").hidden = !waiting;
  if (!waiting) return;
  $("challenge-sent-title").textContent = sent.to ? t("challenge_sent_to", { name: sent.to }) : t("challenge_link_made");
  $("challenge-sent-game").textContent = gameText(sent);
  $("challenge-link-box").hidden = Boolean(sent.to);
  $("challenge-link").value = `${location.origin}${sent.url}`;
  const closed = Boolean(answer);
  $("challenge-status").textContent = closed ? t(answer.key, answer.params) : t(sent.to ? "challenge_waiting_for" : "challenge_link_waiting", { name: sent.to ?? "" });
  $("challenge-status").classList.toggle("closed", closed);
  $("challenge-cancel").hidden = closed;
}

function refusalText(refusal) {
  const key = errorKey(refusal);
  return key ? t(key, refusal.params) : refusal.message;
}

async function send(event) {
  event.preventDefault();
  error = null;
  const open = !opponent || $("challenge-open").checked;
  const body = {
    variant: $("challenge-variant").value || "egyptian",
    players: Number($("challenge-players").value || 2),
    rated: $("challenge-rated").checked,
    turn_seconds: Number($("challenge-timer").value),
    invite: [...$("challenge-invites").querySelectorAll("input")].map((input) => input.value.trim()).filter(Boolean),
  };
  const button = $("challenge-send");
  button.disabled = true;
  try {
    const made = await postJSON(open ? "/api/challenge/open" : `/api/challenge/${encodeURIComponent(opponent)}`, body);
    sent = made;
    answer = null;
    stopListening();
    stopListening = onNotification(answered);
  } catch (refusal) {
    error = refusalText(refusal);
  }
  button.disabled = false;
  renderForm();
  renderSent();
  if (error) $("challenge-error").focus();
  else if (sent?.to) $("challenge-cancel").focus();
  else $("challenge-link").select();
}

/** The answer to the challenge waited for: accepted goes to the table at once. */
function answered(notification) {
  const payload = notification.payload ?? {};
  const challenge = payload.challenge ?? payload;
  if (!sent || challenge.id !== sent.id) return false;
  if (notification.kind === "challenge_accepted") {
    const table = notificationTable(notification);
    if (table) location.assign(tableUrl(table)); // (the seat's token is kept already)
    return true;
  }
  if (notification.kind === "challenge_declined") {
    answer = { key: "challenge_declined_because", params: { name: challenge.to ?? "", reason: reasonText(challenge.reason) } };
    renderSent();
    return true;
  }
  return false;
}

async function cancelSent() {
  if (!sent) return;
  try {
    await cancelChallenge(sent.id);
    answer = { key: "challenge_cancelled_by_you", params: {} };
  } catch (refusal) {
    answer = { key: "challenge_closed_now", params: { why: refusalText(refusal) } };
  }
  renderSent();
  $("challenge-close").focus();
}

async function copyLink() {
  const input = $("challenge-link");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  const button = $("challenge-copy");
  button.textContent = t("copied");
  setTimeout(() => { button.textContent = t("copy_link"); }, 1500);
}

async function loadVariants() {
  if (variants) return;
  try {
    variants = await getJSON("/api/variants");
  } catch {
    variants = [{ name: "egyptian", players: [2, 3, 4] }];
  }
}

/** Opens the form to challenge `name` (null: a link anyone may accept). */
export async function openChallengeForm(name = null) {
  const node = dialog();
  opponent = name;
  sent = null;
  answer = null;
  error = null;
  $("challenge-open").checked = !name;
  await loadVariants();
  fillSelect($("challenge-variant"), variants.map((v) => [v.name, variantName(v.name)]), $("challenge-variant").value || "egyptian");
  fillPlayers();
  fillSelect($("challenge-timer"), TURN_CHOICES.map((seconds) => [seconds, timerText(seconds)]), $("challenge-timer").value || DEFAULT_TURN);
  renderInvites();
  renderForm();
  renderSent();
  if (!node.open) node.showModal();
  $("challenge-variant").focus();
}

/** Redraws the open form in the page's language. */
export function redrawChallengeForm() {
  if (!$("challenge-dialog") || !variants) return;
  for (const option of $("challenge-variant").options) option.textContent = variantName(option.value);
  for (const option of $("challenge-players").options) {
    const n = Number(option.value);
    option.textContent = n === 2 ? t("players_2") : t("players_n", { n });
  }
  for (const option of $("challenge-timer").options) option.textContent = timerText(Number(option.value));
  renderForm();
  renderSent();
}
