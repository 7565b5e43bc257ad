// The account part of a page's header: "Sign up" and "Log in" for a guest, each opening a
// form in a dialog; the logged-in name (a link to the player's page), the inbox (a bell
// with the number unread), the players followed, the account page and "Log out" after.
// Logged in, the page listens for notifications (notifications.js).
//
// The forms post to /api/signup and /api/login ({name, password}); a refusal is shown
// beside the field it is about (the name or the password) and that field takes the focus.
// A refusal is shown by its code (error.<code> in the catalog), else in the server's words.

import { $, el } from "./dom.js";
import { ApiError, getJSON, postJSON } from "./api.js";
import { errorKey, t } from "./i18n.js";
import { redrawReport, showStanding } from "./report.js";
import { inboxLink, redrawNotifications, startNotifications, stopNotifications } from "./notifications.js";

let account = null; // the logged-in name, or null
let onChange = () => {};
const errors = { signup: new Map(), login: new Map() }; // field -> { key } or { text }

const FIELD_OF = {
  bad_name: "name", name_taken: "name",
  bad_password: "password", weak_password: "password", wrong_login: "password", login_locked: "password",
};

/** The logged-in name, or null for a guest. */
export function accountName() {
  return account;
}

/** The page of a player: /u/Amira. */
export function profileUrl(name) {
  return `/u/${encodeURIComponent(name)}`;
}

function field(form, name, type, autocomplete) {
  const id = `${form}-${name}`;
  const key = name === "name" ? "username" : "password";
  const hint = form === "signup" ? `${id}-hint` : null;
  const input = el("input", {
    id, name, type, autocomplete, required: "", spellcheck: "false",
    "aria-describedby": hint ? `${hint} ${id}-error` : `${id}-error`, maxlength: name === "name" ? "20" : "200",
  });
  if (name === "name") input.setAttribute("dir", "auto");
  const box = el("div", { class: "field", "data-field": name },
    el("label", { for: id, "data-i18n": key, text: t(key) }), input);
  if (hint) box.append(el("p", { id: hint, class: "hint", "data-i18n": `${key}_hint`, text: t(`${key}_hint`) }));
  box.append(el("p", { id: `${id}-error`, class: "field-error", hidden: "" }));
  return box;
}

function dialog(form) {
  const signup = form === "signup";
  const title = signup ? "sign_up_title" : "log_in_title";
  const node = el("dialog", { id: `${form}-dialog`, class: "dialog account-dialog", "aria-labelledby": `${form}-title` },
    el("form", { id: `${form}-form`, class: "account-form", novalidate: "" },
      el("h2", { id: `${form}-title`, "data-i18n": title, text: t(title) }),
      el("p", { class: "hint", "data-i18n": "account_hint", text: t("account_hint") }),
      field(form, "name", "text", "username"),
      field(form, "password", "password", signup ? "new-password" : "current-password"),
      el("p", { id: `${form}-error`, class: "form-error", role: "alert", tabindex: "-1", hidden: "" }),
      el("div", { class: "button-row" },
        el("button", { type: "submit", class: "btn btn-primary", "data-i18n": signup ? "create_account" : "log_in", text: t(signup ? "create_account" : "log_in") }),
        el("button", { type: "button", class: "btn", value: "cancel", "data-i18n": "cancel", text: t("cancel") }))));
  node.querySelector("button[value=cancel]").addEventListener("click", () => node.close());
  node.querySelector("form").addEventListener("submit", (event) => submit(event, form));
  for (const input of node.querySelectorAll("input")) {
    input.addEventListener("input", () => {
      errors[form].delete(input.name);
      errors[form].delete("form");
      renderErrors(form);
    });
  }
  return node;
}

function shownError(error) {
  return error.key ? t(error.key, error.params) : error.text;
}

function renderErrors(form) {
  for (const name of ["name", "password"]) {
    const error = errors[form].get(name);
    const box = $(`${form}-${name}-error`);
    box.textContent = error ? shownError(error) : "";
    box.hidden = !error;
    const input = $(`${form}-${name}`);
    input.closest(".field").classList.toggle("invalid", Boolean(error));
    if (error) input.setAttribute("aria-invalid", "true");
    else input.removeAttribute("aria-invalid");
  }
  const general = errors[form].get("form");
  $(`${form}-error`).textContent = general ? shownError(general) : "";
  $(`${form}-error`).hidden = !general;
}

/** Where a refusal shows: [field, error], translated by its code. */
function refusal(error) {
  const key = errorKey(error);
  const hint = error.params?.hint;
  const shown = key && typeof hint === "string" && hint.startsWith("account_hint_")
    ? { text: `${t(key, error.params)} ${t(hint)}` }
    : key ? { key, params: error.params } : { text: error.serverMessage || t("err_account_failed") };
  return [FIELD_OF[error.code] ?? "form", shown];
}

async function submit(event, form) {
  event.preventDefault();
  errors[form].clear();
  const name = $(`${form}-name`).value.trim();
  const password = $(`${form}-password`).value;
  if (!name) errors[form].set("name", { key: "err_empty_name" });
  if (!password) errors[form].set("password", { key: "err_empty_password" });
  if (!errors[form].size) {
    const button = $(`${form}-form`).querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const answer = await postJSON(form === "signup" ? "/api/signup" : "/api/login", { name, password });
      button.disabled = false;
      $(`${form}-dialog`).close();
      $(`${form}-form`).reset();
      setAccount(answer?.name ?? name);
      $("account-name")?.focus();
      return;
    } catch (error) {
      button.disabled = false;
      const [where, shown] = refusal(error);
      errors[form].set(where, shown);
    }
  }
  renderErrors(form);
  const first = ["name", "password"].find((name) => errors[form].has(name));
  if (first) $(`${form}-${first}`).focus();
  else $(`${form}-error`).focus();
}

function open(form) {
  const other = form === "signup" ? "login" : "signup";
  if ($(`${other}-dialog`).open) $(`${other}-dialog`).close();
  errors[form].clear();
  renderErrors(form);
  $(`${form}-dialog`).showModal();
  $(`${form}-name`).focus();
}

async function logOut() {
  try {
    await postJSON("/api/logout");
  } catch {
    // The cookie may be gone already: the page forgets the name either way.
  }
  setAccount(null);
  $("open-login")?.focus();
}

function setAccount(name) {
  account = name || null;
  render();
  if (account) startNotifications();
  else stopNotifications();
  showStanding(Boolean(account));
  onChange(account);
}

/** Two people: the link to the players followed (its only sign on a phone). */
function peopleIcon() {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", "people-icon");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7Zm7.5-1a3 3 0 1 0 0-6 3 3 0 0 0 0 6ZM2 19.5C2 16 5.1 13.5 9 13.5s7 2.5 7 6V20H2v-.5Zm15.5.5v-.5c0-1.9-.7-3.5-1.9-4.7.6-.2 1.2-.3 1.9-.3 3 0 5.5 2 5.5 4.8v.7h-5.5Z");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

function render() {
  const box = $("account");
  if (!box) return;
  if (account) {
    box.replaceChildren(
      el("a", { id: "account-name", class: "account-name", href: profileUrl(account), title: t("your_profile") },
        el("span", { class: "account-icon", "aria-hidden": "true", text: "●" }), el("bdi", { text: account })),
      inboxLink(),
      el("a", { id: "following-link", class: "btn btn-small btn-ghost following-link", href: "/following", title: t("following_link") },
        peopleIcon(), el("span", { class: "link-text", text: t("following_link") })),
      el("a", { id: "account-link", class: "btn btn-small btn-ghost", href: "/account", text: t("account_link") }),
      el("button", { id: "log-out", type: "button", class: "btn btn-small btn-ghost", text: t("log_out") }));
    $("log-out").addEventListener("click", logOut);
  } else {
    box.replaceChildren(
      el("button", { id: "open-signup", type: "button", class: "btn btn-small btn-primary", text: t("sign_up") }),
      el("button", { id: "open-login", type: "button", class: "btn btn-small btn-ghost", text: t("log_in") }));
    $("open-signup").addEventListener("click", () => open("signup"));
    $("open-login").addEventListener("click", () => open("login"));
  }
}

/** Redraws the header's account part and the open forms' errors in the current language. */
export function redrawAccount() {
  render();
  redrawReport();
  redrawNotifications();
  if ($("signup-dialog")) {
    renderErrors("signup");
    renderErrors("login");
  }
}

/**
 * Fills the page's #account box and adds the two forms; `changed(name)` is called with the
 * logged-in name (null for a guest) once it is known and after every log-in or log-out.
 */
export async function setupAccount(changed = () => {}) {
  onChange = changed;
  if (!$("account")) return;
  document.body.append(dialog("signup"), dialog("login"));
  render();
  try {
    const me = await getJSON("/api/me");
    setAccount(me?.name ?? null);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    setAccount(null);
  }
}
