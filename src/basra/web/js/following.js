// The players one follows (/following): each with what they are doing, playing (with a
// link to watch the table), online or away, read again every REFRESH_MS and whenever the
// page comes back into view; a Challenge button (the challenge form) and Unfollow on each;
// a field to follow a player by name; and a challenge link anyone may accept.
// Data: GET /api/following, POST /api/follow/{name}, POST /api/unfollow/{name}.

import { $, el } from "./dom.js";
import { getJSON, postJSON } from "./api.js";
import { accountName, profileUrl, redrawAccount, setupAccount } from "./account.js";
import { errorKey, setupLang, t } from "./i18n.js";
import { openChallengeForm, redrawChallengeForm } from "./challenge_form.js";

const REFRESH_MS = 30000;

let following = null; // [{ name, status, table, bot }], or null before it came
let followError = null;
let timer = null;

function refusalText(error) {
  const key = errorKey(error);
  return key ? t(key, error.params) : error.message;
}

function entry(player) {
  const item = el("li", { class: `list-item friend presence-${player.status}`, "data-name": player.name, "data-status": player.status },
    el("span", { class: "presence-dot", "aria-hidden": "true" }));
  const who = el("span", { class: "item-main" },
    el("a", { class: "friend-name", href: profileUrl(player.name) }, el("bdi", { text: player.name })));
  if (player.bot) who.append(" ", el("span", { class: "bot-mark", text: t("bot_mark") }));
  who.append(el("span", { class: "item-sub presence-text", text: t(`friends_status_${player.status}`) }));
  item.append(who);
  const actions = el("span", { class: "actions" });
  if (player.status === "playing" && player.table) {
    actions.append(el("a", { class: "btn btn-small btn-primary", href: `/t/${encodeURIComponent(player.table)}`,
      "aria-label": t("friends_watch_name", { name: player.name }), text: t("friends_watch") }));
  }
  const challenge = el("button", { type: "button", class: "btn btn-small", "data-challenge": player.name,
    "aria-label": t("challenge_title", { name: player.name }), text: t("challenge_button") });
  const unfollow = el("button", { type: "button", class: "btn btn-small btn-quiet", "data-unfollow": player.name,
    "aria-label": t("friends_unfollow_name", { name: player.name }), text: t("friends_unfollow") });
  actions.append(challenge, unfollow);
  item.append(actions);
  return item;
}

function render() {
  const loggedIn = Boolean(accountName());
  $("following-panel").hidden = !loggedIn;
  $("open-panel").hidden = !loggedIn;
  if (!loggedIn) {
    $("alert").textContent = t("friends_login_needed");
    return;
  }
  if (following) {
    $("following").replaceChildren(...(following.length ? following.map(entry)
      : [el("li", { class: "empty", text: t("friends_none") })]));
  }
  const box = $("follow-error");
  box.textContent = followError ?? "";
  box.hidden = !followError;
  if (followError) $("follow-name").setAttribute("aria-invalid", "true");
  else $("follow-name").removeAttribute("aria-invalid");
}

async function load() {
  if (!accountName()) return;
  try {
    following = (await getJSON("/api/following")).following;
    $("alert").textContent = "";
  } catch (error) {
    $("alert").textContent = refusalText(error);
  }
  render();
}

async function followByName(event) {
  event.preventDefault();
  const name = $("follow-name").value.trim();
  followError = name ? null : t("err_empty_name");
  if (name) {
    try {
      await postJSON(`/api/follow/${encodeURIComponent(name)}`);
      $("follow-name").value = "";
      await load();
    } catch (error) {
      followError = refusalText(error);
    }
  }
  render();
  if (followError) $("follow-name").focus();
}

async function unfollow(name) {
  try {
    await postJSON(`/api/unfollow/${encodeURIComponent(name)}`);
  } catch (error) {
    $("alert").textContent = refusalText(error);
  }
  await load();
  $("follow-name").focus();
}

function init() {
  setupLang(() => {
    render();
    redrawAccount();
    redrawChallengeForm();
  });
  $("follow-form").addEventListener("submit", followByName);
  $("follow-name").addEventListener("input", () => {
    followError = null;
    render();
  });
  $("open-challenge").addEventListener("click", () => openChallengeForm(null));
  $("following").addEventListener("click", (event) => {
    const challenge = event.target.closest("button[data-challenge]");
    if (challenge) openChallengeForm(challenge.dataset.challenge);
    const gone = event.target.closest("button[data-unfollow]");
    if (gone) unfollow(gone.dataset.unfollow);
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") load();
  });
  setupAccount(() => {
    following = null;
    clearInterval(timer);
    if (accountName()) timer = setInterval(load, REFRESH_MS);
    render();
    load();
  });
}

init();
