// Personal access tokens on the account page (docs/api.md, "Tokens"): the list (each
// token's description, scopes, when it was made and last used), a form to make one (a
// description and its scopes: read, play, bot), which shows the new token once, with a
// copy button and a warning, and Revoke, asked twice. The server keeps only a hash: a
// token not copied when made is lost. Data: POST, GET, DELETE /api/tokens.

import { $, el } from "./dom.js";
import { deleteJSON, getJSON, postJSON } from "./api.js";
import { accountName } from "./account.js";
import { errorKey, formatMoment, t } from "./i18n.js";

export const SCOPES = ["read", "play", "bot"];

let tokens = null; // the list from the server, or null before it came
let made = null; // the token just made: shown until "Done"
let confirming = null; // the id of a token whose revoking waits for "Revoke" again
let error = null;

function refusalText(refusal) {
  const key = errorKey(refusal);
  return key ? t(key, refusal.params) : refusal.message;
}

function when(ms) {
  return ms === null || ms === undefined ? t("tokens_never") : formatMoment(ms);
}

function scopeList(scopes) {
  return scopes.map((scope) => t(`tokens_scope_${scope}`)).join(t("list_comma"));
}

function item(token) {
  const node = el("li", { class: "list-item token-item", "data-token": String(token.id) },
    el("span", { class: "item-main" },
      el("strong", { class: "token-description", dir: "auto", text: token.description || t("tokens_no_description") }),
      el("span", { class: "item-sub", text: t("tokens_scopes_are", { scopes: scopeList(token.scopes) }) }),
      el("span", { class: "item-sub", text: `${t("tokens_created", { when: when(token.created_at) })} · ${t("tokens_used", { when: when(token.last_used_at) })}` })));
  const actions = el("span", { class: "actions" });
  if (confirming === token.id) {
    const yes = el("button", { type: "button", class: "btn btn-small btn-danger", "data-revoke-confirm": String(token.id), text: t("tokens_revoke_confirm") });
    const no = el("button", { type: "button", class: "btn btn-small", text: t("cancel") });
    yes.addEventListener("click", () => revoke(token.id));
    no.addEventListener("click", () => { confirming = null; render(); });
    node.append(el("p", { class: "token-warning", role: "alert", text: t("tokens_revoke_question") }));
    actions.append(yes, no);
  } else {
    const revokeButton = el("button", { type: "button", class: "btn btn-small", "data-revoke": String(token.id),
      "aria-label": t("tokens_revoke_name", { name: token.description || t("tokens_no_description") }), text: t("tokens_revoke") });
    revokeButton.addEventListener("click", () => {
      confirming = token.id;
      render();
      $("tokens").querySelector(`[data-revoke-confirm="${token.id}"]`)?.focus();
    });
    actions.append(revokeButton);
  }
  node.append(actions);
  return node;
}

/** Draws the section (in the page's language); hidden for a guest. */
export function render() {
  const loggedIn = Boolean(accountName());
  $("tokens-panel").hidden = !loggedIn;
  if (!loggedIn) return;
  if (tokens) {
    $("tokens").replaceChildren(...(tokens.length ? tokens.map(item)
      : [el("li", { class: "empty", text: t("tokens_none") })]));
  }
  $("token-made").hidden = !made;
  if (made) $("token-value").value = made.token;
  const box = $("token-error");
  box.textContent = error ?? "";
  box.hidden = !error;
}

/** Reads the logged-in account's tokens again (after logging in or out). */
export async function loadTokens() {
  made = null;
  confirming = null;
  tokens = null;
  if (accountName()) {
    try {
      tokens = (await getJSON("/api/tokens")).tokens;
    } catch (refusal) {
      error = refusalText(refusal);
    }
  }
  render();
}

async function create(event) {
  event.preventDefault();
  error = null;
  const scopes = SCOPES.filter((scope) => $(`token-scope-${scope}`).checked);
  if (!scopes.length) error = t("tokens_pick_scope");
  if (!error) {
    $("token-create").disabled = true;
    try {
      made = await postJSON("/api/tokens", { description: $("token-description").value.trim(), scopes });
      $("token-form").reset();
      tokens = (await getJSON("/api/tokens")).tokens;
    } catch (refusal) {
      error = refusalText(refusal);
    }
    $("token-create").disabled = false;
  }
  render();
  if (error) $("token-error").focus();
  else $("token-value").select();
}

async function revoke(id) {
  error = null;
  try {
    await deleteJSON(`/api/tokens/${encodeURIComponent(id)}`);
  } catch (refusal) {
    error = refusalText(refusal);
  }
  const kept = error;
  await loadTokens();
  error = kept;
  render();
  $("token-description").focus();
}

async function copyToken() {
  const input = $("token-value");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand("copy");
  }
  const button = $("token-copy");
  button.textContent = t("copied");
  setTimeout(() => { button.textContent = t("tokens_copy"); }, 1500);
}

/** Wires the section's form and buttons (the account page calls it once). */
export function setupTokens() {
  $("token-form").addEventListener("submit", create);
  $("token-copy").addEventListener("click", copyToken);
  $("token-done").addEventListener("click", () => {
    made = null;
    render();
    $("token-description").focus();
  });
  for (const scope of SCOPES) {
    $(`token-scope-${scope}`).addEventListener("change", () => {
      error = null;
      render();
    });
  }
}
