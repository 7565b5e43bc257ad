// The moderation page (/mod, moderators only): the open reports with the table's chat
// lines and a link to the record, the server's flags, mined puzzles waiting, the action
// form and the audit log. Data: GET /api/mod; actions: POST /api/mod/actions
// (docs/web-protocol.md, "Moderation"). A report's or a flag's buttons fill the form
// (its account, its action) for the moderator to give a reason and confirm.

import { $, el } from "./dom.js";
import { getJSON, postJSON } from "./api.js";
import { profileUrl, redrawAccount, setupAccount } from "./account.js";
import { setupLang, t } from "./i18n.js";
import { when } from "./report.js";

const ACTIONS = ["mute", "ban", "lift_mute", "lift_ban", "reset_rating", "rename", "close",
  "dismiss_report", "settle_report", "dismiss_flag", "settle_flag", "accept_puzzle", "reject_puzzle"];
const FIELDS = {
  mute: ["name", "duration"], ban: ["name", "duration"], lift_mute: ["name"], lift_ban: ["name"],
  reset_rating: ["name", "pool"], rename: ["name", "new_name"], close: ["name"],
};
const DURATIONS = [["60", "mod_1_hour"], ["1440", "mod_1_day"], ["10080", "mod_1_week"], ["43200", "mod_30_days"], ["", "mod_for_good"]];

let queue = null;
let puzzle = null; // the mined puzzle the form acts on

function senderName(from) {
  if (from?.watcher) return from.name ?? "";
  return from?.name ?? "";
}

function fill(action, values = {}) {
  $("mod-action").value = action;
  $("mod-name").value = values.name ?? "";
  $("mod-report").value = values.report ?? "";
  $("mod-flag").value = values.flag ?? "";
  puzzle = values.puzzle ?? null;
  showFields();
  $("mod-reason").focus();
}

function button(key, action, values, extra = {}) {
  const node = el("button", { type: "button", class: "btn btn-small", "data-action": action, text: t(key), ...extra });
  node.addEventListener("click", () => fill(action, values));
  return node;
}

function renderReports() {
  const reports = queue?.reports ?? [];
  $("mod-reports").replaceChildren(...(reports.length ? reports.map((report) => {
    const head = el("div", { class: "mod-item-head" },
      el("strong", {}, report.target_account ? el("a", { href: profileUrl(report.target), text: report.target, dir: "auto" }) : el("bdi", { text: report.target })),
      el("span", { class: "mod-reason-tag", text: t(`mod_reason_${report.reason}`) }),
      el("span", { class: "mod-meta" }, t("mod_reported_by", { name: report.reporter }), " · ", when(report.created_at)));
    const item = el("li", { class: "mod-item", "data-report": String(report.id) }, head);
    if (report.table) {
      const where = el("p", { class: "mod-meta", text: t("mod_at_table", { table: report.table, seat: (report.seat ?? 0) + 1 }) });
      if (report.record !== null && report.record !== undefined) where.append(" · ", el("a", { href: `/replay/${encodeURIComponent(report.record)}`, text: t("mod_record") }));
      item.append(where);
    }
    if (report.text) item.append(el("p", { class: "mod-text", dir: "auto", text: report.text }));
    if (report.chat?.length) {
      item.append(el("ul", { class: "mod-chat", "aria-label": t("mod_chat") }, ...report.chat.map((line) =>
        el("li", { class: report.target === senderName(line.from) ? "mod-chat-target" : "" },
          el("bdi", { class: "chat-from", text: senderName(line.from) }), ": ",
          el("span", { dir: "auto", text: line.phrase ? t(`phrase_${line.phrase}`) : line.text ?? "" })))));
    }
    const values = { name: report.target_account ? report.target : "", report: report.id };
    const buttons = el("div", { class: "mod-buttons" }, button("mod_dismiss", "dismiss_report", { report: report.id }));
    if (report.target_account) {
      buttons.append(button("mod_action_mute", "mute", values), button("mod_action_ban", "ban", values),
        button("mod_action_rename", "rename", values), button("mod_action_close", "close", values));
    }
    item.append(buttons);
    return item;
  }) : [el("li", { class: "empty", text: t("mod_no_reports") })]));
}

function renderFlags() {
  const flags = queue?.flags ?? [];
  $("mod-flags").replaceChildren(...(flags.length ? flags.map((flag) => {
    const who = [flag.user, flag.other_user].filter(Boolean);
    const head = el("div", { class: "mod-item-head" },
      el("strong", { text: t(`mod_flag_${flag.kind}`) }),
      el("span", { class: "mod-meta", text: when(flag.created_at) }));
    const item = el("li", { class: "mod-item", "data-flag": String(flag.id) }, head);
    if (who.length) item.append(el("p", {}, ...who.flatMap((name, i) => [i ? " · " : "", el("a", { href: profileUrl(name), dir: "auto", text: name })])));
    if (flag.record !== null && flag.record !== undefined) item.append(el("p", {}, el("a", { href: `/replay/${encodeURIComponent(flag.record)}`, text: t("mod_record") })));
    const details = Object.entries(flag.details ?? {}).map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(", ") : value}`).join(" · ");
    if (details) item.append(el("p", { class: "mod-meta", dir: "ltr", text: details }));
    const buttons = el("div", { class: "mod-buttons" }, button("mod_dismiss", "dismiss_flag", { flag: flag.id }));
    if (flag.user) buttons.append(button("mod_action_ban", "ban", { name: flag.user, flag: flag.id }), button("mod_action_reset_rating", "reset_rating", { name: flag.user, flag: flag.id }));
    item.append(buttons);
    return item;
  }) : [el("li", { class: "empty", text: t("mod_no_flags") })]));
}

function renderPuzzles() {
  const puzzles = queue?.puzzles ?? [];
  $("mod-puzzles").replaceChildren(...(puzzles.length ? puzzles.map((p) => el("li", { class: "mod-item", "data-puzzle": p.id },
    el("div", { class: "mod-item-head" }, el("strong", { dir: "ltr", text: p.id }),
      el("a", { href: `/replay/${encodeURIComponent(p.record)}`, text: t("mod_record") })),
    el("div", { class: "mod-buttons" }, button("mod_accept", "accept_puzzle", { puzzle: p.id }), button("mod_reject", "reject_puzzle", { puzzle: p.id }))))
    : [el("li", { class: "empty", text: t("mod_no_puzzles") })]));
}

function renderAudit() {
  const audit = queue?.audit ?? [];
  $("mod-audit").replaceChildren(...audit.map((entry) => el("tr", { "data-action": entry.action },
    el("td", { text: when(entry.created_at) }),
    el("td", {}, el("bdi", { text: entry.moderator === "operator" ? t("mod_operator") : entry.moderator })),
    el("td", { text: t(`mod_action_${entry.action}`) }),
    el("td", {}, el("bdi", { text: entry.target })),
    el("td", { dir: "auto", text: entry.reason }))));
}

function renderForm() {
  const action = $("mod-action").value || "mute";
  $("mod-action").replaceChildren(...ACTIONS.map((name) => el("option", { value: name, text: t(`mod_action_${name}`) })));
  $("mod-action").value = action;
  const duration = $("mod-duration").value || "60";
  $("mod-duration").replaceChildren(...DURATIONS.map(([minutes, key]) => el("option", { value: minutes, text: t(key) })));
  $("mod-duration").value = duration;
  showFields();
}

function showFields() {
  const wanted = FIELDS[$("mod-action").value] ?? [];
  for (const box of $("mod-action-form").querySelectorAll(".field[data-for]")) box.hidden = !wanted.includes(box.dataset.for);
}

function render() {
  renderForm();
  renderReports();
  renderFlags();
  renderPuzzles();
  renderAudit();
}

async function load() {
  try {
    queue = await getJSON("/api/mod");
    $("alert").textContent = "";
  } catch (error) {
    $("alert").textContent = error.message;
  }
  render();
}

async function submit(event) {
  event.preventDefault();
  const action = $("mod-action").value;
  const wanted = FIELDS[action] ?? [];
  const body = { action, reason: $("mod-reason").value.trim() };
  if (wanted.includes("name")) body.name = $("mod-name").value.trim();
  if (wanted.includes("duration") && $("mod-duration").value) body.minutes = Number($("mod-duration").value);
  if (wanted.includes("pool")) body.pool = $("mod-pool").value.trim();
  if (wanted.includes("new_name")) body.new_name = $("mod-new-name").value.trim();
  if ($("mod-report").value) body.report = Number($("mod-report").value);
  if ($("mod-flag").value) body.flag = Number($("mod-flag").value);
  if (puzzle) body.puzzle = puzzle;
  try {
    await postJSON("/api/mod/actions", body);
    $("mod-result").textContent = t("mod_done", { action: t(`mod_action_${action}`) });
    $("mod-action-form").reset();
    $("mod-report").value = "";
    $("mod-flag").value = "";
    puzzle = null;
    await load();
  } catch (error) {
    $("mod-result").textContent = error.message;
  }
}

async function init() {
  setupLang(() => {
    render();
    redrawAccount();
  });
  setupAccount();
  $("mod-action").addEventListener("change", showFields);
  $("mod-action-form").addEventListener("submit", submit);
  render();
  await load();
}

init();
