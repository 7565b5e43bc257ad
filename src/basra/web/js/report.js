// Reports, blocks and a player's standing (docs/web-protocol.md, "Moderation"):
// - openReport(target): a dialog to report a player, by account name ({ name }) or by a
//   table's seat ({ table, seat, name }), with a reason from a fixed list and an optional
//   text; a guest is asked to log in first.
// - block(name) / unblock(name) / blockedList(): POST /api/blocks, /api/blocks/remove.
// - showStanding(loggedIn): a notice at the top of the page while a moderator's sanction
//   holds (what, why and until when), and a link to the moderation page for moderators.
// Every text goes in with textContent, never as HTML.

import { $, el } from "./dom.js";
import { getJSON, postJSON } from "./api.js";
import { formatMoment, t } from "./i18n.js";

export const REASONS = ["cheating", "abuse", "bad_name", "other"];
export const MAX_REPORT_TEXT = 500;

let target = null;
let loggedIn = false;
let standing = null;

/** A moment (Unix milliseconds) as the page's language writes it. */
export function when(ms) {
  return formatMoment(ms);
}

function dialog() {
  let node = $("report-dialog");
  if (node) return node;
  node = el("dialog", { id: "report-dialog", class: "dialog report-dialog", "aria-labelledby": "report-title" },
    el("form", { id: "report-form", class: "account-form", novalidate: "" },
      el("h2", { id: "report-title" }),
      el("p", { id: "report-login", class: "hint", hidden: "" }),
      el("fieldset", { id: "report-reasons", class: "report-reasons" },
        el("legend", { id: "report-reason-legend" })),
      el("div", { class: "field" },
        el("label", { for: "report-text", id: "report-text-label" }),
        el("textarea", { id: "report-text", name: "text", rows: "3", maxlength: String(MAX_REPORT_TEXT), dir: "auto" })),
      el("p", { id: "report-error", class: "form-error", role: "alert", hidden: "" }),
      el("p", { id: "report-done", class: "hint", role: "status", hidden: "" }),
      el("div", { class: "button-row" },
        el("button", { id: "report-send", type: "submit", class: "btn btn-primary" }),
        el("button", { id: "report-cancel", type: "button", class: "btn", value: "cancel" }))));
  document.body.append(node);
  $("report-cancel").addEventListener("click", () => node.close());
  $("report-form").addEventListener("submit", submit);
  return node;
}

function renderDialog() {
  if (!$("report-dialog")) return;
  $("report-title").textContent = t("mod_report_title", { name: target?.name ?? "" });
  $("report-login").textContent = t("mod_report_login");
  $("report-login").hidden = loggedIn;
  $("report-reason-legend").textContent = t("mod_report_reason");
  const chosen = $("report-reasons").querySelector("input:checked")?.value ?? "";
  $("report-reasons").replaceChildren($("report-reason-legend"), ...REASONS.map((reason) =>
    el("label", { class: "check-row" },
      el("input", { type: "radio", name: "reason", value: reason, ...(chosen === reason ? { checked: "" } : {}) }),
      el("span", { text: t(`mod_reason_${reason}`) }))));
  $("report-text-label").textContent = t("mod_report_text");
  $("report-send").textContent = t("mod_report_send");
  $("report-cancel").textContent = t("cancel");
  for (const input of $("report-form").querySelectorAll("input, textarea, #report-send")) input.disabled = !loggedIn;
}

async function submit(event) {
  event.preventDefault();
  const reason = $("report-reasons").querySelector("input:checked")?.value;
  const shown = $("report-error");
  shown.hidden = true;
  if (!reason) {
    shown.textContent = t("mod_report_pick_reason");
    shown.hidden = false;
    return;
  }
  const body = { reason, text: $("report-text").value.trim() };
  if (target.table) Object.assign(body, { table: target.table, seat: target.seat });
  else body.name = target.name;
  try {
    await postJSON("/api/reports", body);
    $("report-done").textContent = t("mod_report_sent");
    $("report-done").hidden = false;
    $("report-send").disabled = true;
  } catch (error) {
    shown.textContent = error.message;
    shown.hidden = false;
  }
}

/** Opens the report dialog for `who`: { name } or { table, seat, name }. */
export async function openReport(who) {
  target = who;
  const node = dialog();
  $("report-form").reset();
  $("report-error").hidden = true;
  $("report-done").hidden = true;
  try {
    loggedIn = Boolean((await getJSON("/api/me"))?.name);
  } catch {
    loggedIn = false;
  }
  renderDialog();
  node.showModal();
}

/** The accounts this player blocked: [{ name, since }]. */
export async function blockedList() {
  return (await getJSON("/api/blocks")).blocked ?? [];
}

export async function block(name) {
  return (await postJSON("/api/blocks", { name })).blocked ?? [];
}

export async function unblock(name) {
  return (await postJSON("/api/blocks/remove", { name })).blocked ?? [];
}

function renderStanding() {
  let box = $("standing");
  const sanctions = standing?.sanctions ?? [];
  if (!sanctions.length && !standing?.moderator) {
    box?.remove();
    return;
  }
  if (!box) {
    box = el("div", { id: "standing", class: "standing" });
    document.querySelector("header.topbar")?.after(box);
  }
  const lines = sanctions.map((sanction) => el("p", { class: "standing-notice", role: "status", "data-kind": sanction.kind },
    el("strong", { text: t(`mod_sanction_${sanction.kind}`) }), " ",
    el("span", { text: sanction.until === null ? t("mod_for_good") : t("mod_until", { when: when(sanction.until) }) }), " ",
    el("span", { text: t("mod_because", { reason: sanction.reason }) })));
  if (standing?.moderator) lines.push(el("p", { class: "standing-mod" }, el("a", { id: "mod-link", href: "/mod", text: t("mod_title") })));
  box.replaceChildren(...lines);
}

/** Shows (or removes) the notice of the sanctions on this player and the moderators' link. */
export async function showStanding(isLoggedIn) {
  standing = null;
  if (isLoggedIn) {
    try {
      standing = await getJSON("/api/me/standing");
    } catch {
      standing = null;
    }
  }
  renderStanding();
}

/** Redraws what this module shows, in the current language. */
export function redrawReport() {
  renderStanding();
  renderDialog();
}
