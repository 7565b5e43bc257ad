// The logged-in player's own page (/account): change the password (the current one is
// needed; every other session ends) and the list of sessions, each with when it logged
// in and was last used, ended one by one or all others at once; the personal access
// tokens (tokens.js).
// Data: GET /api/account/sessions, POST /api/account/sessions/end, POST /api/account/password.

import { $, el } from "./dom.js";
import { getJSON, postJSON } from "./api.js";
import { accountName, redrawAccount, setupAccount } from "./account.js";
import { errorKey, formatMoment, setupLang, t } from "./i18n.js";
import { loadTokens, render as renderTokens, setupTokens } from "./tokens.js";

let sessions = null; // the list from the server, or null before it came
let errors = {}; // field -> text
let done = false;

const FIELD_OF = { wrong_password: "current", login_locked: "current", weak_password: "new", bad_password: "new" };

function when(ms) {
  if (ms === null || ms === undefined) return "–";
  return formatMoment(ms);
}

/** A browser's User-Agent in short ("Firefox, Windows"), or null when it says nothing known. */
function browserOf(agent) {
  if (!agent) return null;
  const browsers = [["Edg/", "Edge"], ["OPR/", "Opera"], ["Firefox/", "Firefox"], ["Chrome/", "Chrome"], ["Safari/", "Safari"]];
  const systems = [["Android", "Android"], ["iPhone", "iPhone"], ["iPad", "iPad"], ["Windows", "Windows"], ["Mac OS", "macOS"], ["CrOS", "ChromeOS"], ["Linux", "Linux"]];
  const browser = browsers.find(([mark]) => agent.includes(mark))?.[1];
  const system = systems.find(([mark]) => agent.includes(mark))?.[1];
  return [browser, system].filter(Boolean).join(", ") || null;
}

/** A refusal in the page's language: its code's text, and the estimator's hint after it. */
function refusalText(error) {
  const key = errorKey(error);
  const text = key ? t(key, error.params) : error.message;
  const hint = error.params?.hint;
  return typeof hint === "string" && hint.startsWith("account_hint_") ? `${text} ${t(hint)}` : text;
}

function renderForm() {
  for (const [field, id] of [["current", "current-password"], ["new", "new-password"]]) {
    const box = $(`${id}-error`);
    box.textContent = errors[field] ?? "";
    box.hidden = !errors[field];
    if (errors[field]) $(id).setAttribute("aria-invalid", "true");
    else $(id).removeAttribute("aria-invalid");
  }
  $("password-done").hidden = !done;
}

function renderSessions() {
  const loggedIn = Boolean(accountName());
  $("password-panel").hidden = !loggedIn;
  $("sessions-panel").hidden = !loggedIn;
  $("alert").textContent = loggedIn ? "" : t("account_login_needed");
  if (!loggedIn || !sessions) return;
  $("sessions").replaceChildren(...sessions.map((session) => {
    const item = el("li", { class: "session", "data-session": session.id },
      el("strong", { text: session.current ? t("account_session_this") : (browserOf(session.browser) || t("account_unknown_browser")), dir: "auto", title: session.browser || "" }),
      el("span", { class: "hint", text: ` ${t("account_session_created", { when: when(session.created_at) })} · ${t("account_session_used", { when: when(session.last_used_at) })}` }));
    if (!session.current) {
      const end = el("button", { type: "button", class: "btn btn-small", text: t("account_session_end") });
      end.addEventListener("click", () => endSessions({ id: session.id }));
      item.append(end);
    }
    return item;
  }));
  const others = sessions.some((session) => !session.current);
  $("end-others").hidden = !others;
  if (!others) $("sessions").append(el("li", { class: "empty", text: t("account_no_other_sessions") }));
}

async function loadSessions() {
  if (!accountName()) {
    sessions = null;
    renderSessions();
    return;
  }
  try {
    sessions = (await getJSON("/api/account/sessions")).sessions;
  } catch (error) {
    $("alert").textContent = refusalText(error);
  }
  renderSessions();
}

async function endSessions(body) {
  try {
    await postJSON("/api/account/sessions/end", body);
  } catch (error) {
    $("alert").textContent = refusalText(error);
  }
  await loadSessions();
}

async function changePassword(event) {
  event.preventDefault();
  errors = {};
  done = false;
  const current = $("current-password").value;
  const next = $("new-password").value;
  if (!current) errors.current = t("err_empty_password");
  if (!next) errors.new = t("err_empty_password");
  if (!errors.current && !errors.new) {
    $("change-password").disabled = true;
    try {
      await postJSON("/api/account/password", { current, new: next });
      $("password-form").reset();
      done = true;
    } catch (error) {
      errors[FIELD_OF[error.code] ?? "new"] = refusalText(error);
    }
    $("change-password").disabled = false;
  }
  renderForm();
  if (errors.current) $("current-password").focus();
  else if (errors.new) $("new-password").focus();
  if (done) await loadSessions();
}

function init() {
  setupLang(() => {
    renderForm();
    renderSessions();
    renderTokens();
    redrawAccount();
  });
  setupTokens();
  $("password-form").addEventListener("submit", changePassword);
  $("end-others").addEventListener("click", () => endSessions({ others: true }));
  for (const input of document.querySelectorAll("#password-form input")) {
    input.addEventListener("input", () => {
      delete errors[input.name];
      renderForm();
    });
  }
  renderSessions();
  setupAccount(() => {
    loadSessions();
    loadTokens();
  });
}

init();
