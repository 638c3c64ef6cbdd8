// The admin console served at /admin: token sign-in (session storage only), forms, a JSON editor with
// live preview and definition errors at their pointers, version diffs, submissions with their files,
// a form's stats over the last 30 days, webhooks, deliveries; each offered only to a token whose
// role and forms (`GET /v1/admin/whoami`) allow it.

import { request, ProblemError, NetworkError, versionFromETag, segment } from "./api.js";
import { renderForm, formatPath } from "./renderer.js";
import { formatSize, isStoredFile } from "./files.js";
import { locatePointers, findPointer, lineColumn } from "./json-locate.js";
import { diffLines, foldDiff } from "./line-diff.js";
import { statsPanel } from "./stats-chart.js";
import { t, language, translatePage, formatDateTime } from "./i18n.js";

/** Keyset paging over the server's opaque cursors, wired to Previous and Next buttons: page i starts
 *  at cursors[i], and `load` fetches the page the pager points at. */
class CursorPager {
  constructor(prev, next, load) {
    this.cursors = [null];
    this.page = 0;
    this.nextCursor = null;
    this.prev = prev;
    this.next = next;
    next.addEventListener("click", () => {
      if (!this.nextCursor) return;
      this.cursors[this.page + 1] = this.nextCursor;
      this.page++;
      load();
    });
    prev.addEventListener("click", () => {
      if (this.page === 0) return;
      this.page--;
      load();
    });
  }

  /** The cursor of the current page; null on the first. */
  get cursor() { return this.cursors[this.page]; }

  /** Records where the page just shown ends and enables the buttons that can move. */
  arrived(nextCursor) {
    this.nextCursor = nextCursor || null;
    this.prev.disabled = this.page === 0;
    this.next.disabled = !this.nextCursor;
  }

  /** Back to the first page (the filters or page size changed). */
  restart() {
    this.cursors.length = 1;
    this.page = 0;
  }
}

const TOKEN_KEY = "formhouse.adminToken";
const PREVIEW_DELAY_MS = 250;
/** The editor's line height in pixels (.ad-editor textarea in formhouse.css). */
const LINE_HEIGHT = 20;
const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "dead"];
/** The days a form's stats cover. */
const STATS_DAYS = 30;
const NEW_FORM_TEMPLATE = {
  id: "new-form",
  responseFormat: "long",
  title: "New form",
  components: [
    { text: { id: "name", title: "Your name", required: true, placeholder: "Ana" } },
    { email: { id: "mail", title: "E-mail", required: true } },
  ],
};

const signinView = document.getElementById("signin-view");
const signinForm = document.getElementById("signin-form");
const signinMessage = document.getElementById("signin-message");
const tokenInput = document.getElementById("token");
const appView = document.getElementById("app-view");
const nav = document.getElementById("nav");
const signOutButton = document.getElementById("sign-out");
const identityEl = document.getElementById("identity");
const flashEl = document.getElementById("flash");

document.documentElement.lang = language;
translatePage();

let routeGeneration = 0;
let pendingFlash = null;
/** The signed-in token as `GET /v1/admin/whoami` describes it: `{name, role, forms}`, `forms` null for every form. */
let me = null;

// ---------- small DOM helpers ----------

/** Creates an element: `on*` props become listeners, `text` the text content, other props attributes. */
function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2).toLowerCase(), value);
    else if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "disabled" || key === "checked" || key === "value") node[key] = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function message(kind = "info") {
  return h("p", { class: "ad-message", "data-kind": kind, role: kind === "error" ? "alert" : "status" });
}

function say(target, text, kind = "info") {
  target.dataset.kind = kind;
  target.textContent = text;
}

function flash(text, kind = "ok") {
  pendingFlash = { text, kind };
}

function formatTime(value) {
  if (!value) return "—";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? String(value) : formatDateTime(date, { dateStyle: "medium", timeStyle: "medium" });
}

function describe(error) {
  if (error instanceof NetworkError) return error.message;
  // A refusal's detail names the token and what it lacks; the title alone ("Forbidden") says nothing.
  if (error instanceof ProblemError && error.status === 403) return t("admin.notAllowed", { reason: error.detail || error.title });
  if (error instanceof ProblemError) return error.detail ? `${error.title}: ${error.detail}` : error.title;
  return String(error && error.message ? error.message : error);
}

function table(headers, rows, className = "") {
  return h("div", { class: "ad-table-wrap" },
    h("table", { class: `ad-table ${className}` },
      h("thead", {}, h("tr", {}, headers.map((title) => h("th", { scope: "col", text: title })))),
      h("tbody", {}, rows)));
}

/** A button that asks for a second click before it acts (no dialogs, so it is easy on keyboards and tests). */
function confirmButton(label, confirmLabel, action, className = "fh-button fh-small fh-danger") {
  let armed = false;
  let timer = null;
  const button = h("button", { type: "button", class: className, text: label });
  button.addEventListener("click", async () => {
    if (!armed) {
      armed = true;
      button.textContent = confirmLabel;
      timer = setTimeout(() => {
        armed = false;
        button.textContent = label;
      }, 5000);
      return;
    }
    clearTimeout(timer);
    button.disabled = true;
    try {
      await action();
    } finally {
      button.disabled = false;
      armed = false;
      button.textContent = label;
    }
  });
  return button;
}

function saveBlob(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: filename });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

// ---------- session ----------

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

/** Calls the admin API with the session's token; a 401 ends the session and shows the sign-in form,
 *  and a 403 asks again what the token may do. */
async function api(path, options = {}) {
  try {
    return await request(path, { ...options, token: token() });
  } catch (error) {
    if (error instanceof ProblemError && error.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      showSignIn(t("signin.revoked"));
    } else if (error instanceof ProblemError && error.status === 403) {
      await recheckIdentity(error);
    }
    throw error;
  }
}

// ---------- what the token may do ----------

/** Owners and editors change forms and webhooks and redeliver. */
function mayEdit() {
  return me.role === "owner" || me.role === "editor";
}

/** Everyone but an exporter reads forms, submissions, stats and deliveries. */
function mayRead() {
  return me.role !== "exporter";
}

/** A new form's id is not known before it is written, so only a token of every form is offered one. */
function mayCreate() {
  return mayEdit() && me.forms === null;
}

function reaches(formId) {
  return me.forms === null || me.forms.includes(formId);
}

function showIdentity() {
  identityEl.hidden = false;
  identityEl.replaceChildren(
    h("span", { id: "identity-name", text: me.name }), " ",
    h("span", { class: "ad-role", id: "identity-role", "data-role": me.role, text: me.role }),
    me.forms === null ? null : h("span", { id: "identity-forms", class: "ad-identity-forms", text: ` ${t("identity.forms", { count: me.forms.length, forms: me.forms.join(", ") || t("identity.none") })}` }));
}

/** Asks the server who the token is; false (with the reason shown) when it cannot tell. */
async function loadIdentity() {
  try {
    const { data } = await api("/v1/admin/whoami");
    me = data;
    showIdentity();
    return true;
  } catch (error) {
    if (!(error instanceof ProblemError && error.status === 401)) say(flashEl, t("signin.unknownPowers", { reason: describe(error) }), "error");
    return false;
  }
}

/** After a 403 for something the console offered: the token's role or forms changed since sign-in.
 *  Learns them again and, when they differ, shows the refusal over a console that offers only the new powers. */
async function recheckIdentity(refusal) {
  const before = JSON.stringify(me);
  try {
    const { data } = await request("/v1/admin/whoami", { token: token() });
    if (JSON.stringify(data) === before) return;
    me = data;
  } catch {
    return;
  }
  showIdentity();
  flash(t("identity.changed", { refusal: describe(refusal) }), "error");
  route();
}

/** Every item of a paged admin list: follows `nextCursor` with the largest page the API allows. */
async function allItems(path) {
  const items = [];
  let cursor = null;
  do {
    const query = `limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const { data } = await api(`${path}${path.includes("?") ? "&" : "?"}${query}`);
    items.push(...(data.items || []));
    cursor = data.nextCursor;
  } while (cursor);
  return items;
}

function showSignIn(text = "") {
  routeGeneration++;
  signinView.hidden = false;
  appView.hidden = true;
  appView.replaceChildren();
  nav.hidden = true;
  signOutButton.hidden = true;
  me = null;
  identityEl.hidden = true;
  identityEl.replaceChildren();
  flashEl.textContent = "";
  signinMessage.textContent = text;
  tokenInput.value = "";
  tokenInput.focus();
}

signinForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const candidate = tokenInput.value.trim();
  if (!candidate) return;
  signinMessage.textContent = "";
  try {
    me = (await request("/v1/admin/whoami", { token: candidate })).data;
  } catch (error) {
    signinMessage.textContent = error instanceof ProblemError && error.status === 401
      ? t("signin.rejected")
      : describe(error);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, candidate);
  tokenInput.value = "";
  showIdentity();
  // Changing the hash renders through hashchange; otherwise render the current route now.
  if (!location.hash || location.hash === "#") location.hash = "#/forms";
  else route();
});

signOutButton.addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn(t("signin.signedOut"));
});

// ---------- routing ----------

function parseRoute() {
  const parts = location.hash.split("?")[0].replace(/^#\/?/, "").split("/").filter(Boolean).map((part) => {
    // A hand-edited address with a broken escape (%E0) is a form that does not exist, not an exception.
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
  if (parts[0] === "deliveries") return { view: "deliveries" };
  if (parts[0] === "new") return { view: "editor", formId: null };
  if (parts[0] === "forms" && parts[1]) return { view: "form", formId: parts[1], tab: parts[2] || "definition" };
  return { view: "forms" };
}

function formHash(formId, tab) {
  return `#/forms/${encodeURIComponent(formId)}${tab ? `/${tab}` : ""}`;
}

async function route() {
  if (!token()) {
    showSignIn();
    return;
  }
  if (!me) {
    const generation = ++routeGeneration;
    signinView.hidden = true;
    if (!(await loadIdentity()) || generation !== routeGeneration) return;
  }
  routeGeneration++;
  signinView.hidden = true;
  appView.hidden = false;
  nav.hidden = false;
  signOutButton.hidden = false;
  if (pendingFlash) {
    say(flashEl, pendingFlash.text, pendingFlash.kind);
    pendingFlash = null;
  } else flashEl.textContent = "";
  const current = allowedRoute(parseRoute());
  nav.querySelector('[data-section="deliveries"]').hidden = !mayRead();
  for (const link of nav.querySelectorAll("a")) {
    const active = link.dataset.section === (current.view === "deliveries" ? "deliveries" : "forms");
    if (active) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  appView.replaceChildren();
  if (current.view === "exports") showExports();
  else if (current.view === "deliveries") showDeliveries(routeGeneration);
  else if (current.view === "editor") showNewForm(routeGeneration);
  else if (current.view === "form") showForm(routeGeneration, current.formId, current.tab);
  else showForms(routeGeneration);
}

/** The view `wanted` names, or the forms list when the token may not use it (an exporter's is its exports). */
function allowedRoute(wanted) {
  if (!mayRead()) return { view: "exports" };
  if (wanted.view === "editor" && !mayCreate()) return { view: "forms" };
  return wanted;
}

window.addEventListener("hashchange", route);

function stillCurrent(generation) {
  return generation === routeGeneration;
}

// ---------- forms list ----------

async function showForms(generation) {
  const status = message();
  const panel = h("section", { class: "ad-panel", "aria-labelledby": "forms-title", id: "forms-panel" },
    h("div", { class: "ad-row" },
      h("h2", { id: "forms-title", class: "ad-grow", text: t("forms.title") }),
      mayCreate() ? h("a", { class: "fh-button fh-small", href: "#/new", id: "new-form", text: t("forms.new") }) : null),
    status);
  appView.append(panel);
  say(status, t("admin.loading"));
  let items;
  try {
    items = await allItems("/v1/admin/forms");
  } catch (error) {
    if (stillCurrent(generation)) say(status, describe(error), "error");
    return;
  }
  if (!stillCurrent(generation)) return;
  status.textContent = "";
  if (!items || items.length === 0) {
    say(status, mayCreate() ? t("forms.empty") : t("forms.emptyScoped"));
    return;
  }
  panel.append(table([t("col.form"), t("col.version"), t("col.submissions"), t("col.updated"), ""], items.map((form) =>
    h("tr", { "data-form-id": form.id },
      h("td", {}, h("a", { href: formHash(form.id), text: form.title || form.id }), h("br"), h("code", { text: form.id })),
      h("td", { class: "ad-form-version", text: form.version ?? "—" }),
      h("td", { class: "ad-form-count", text: form.submissionCount ?? "—" }),
      h("td", { class: "ad-nowrap", text: formatTime(form.updatedAt) }),
      h("td", {}, h("a", { href: `/f/${segment(form.id)}`, target: "_blank", rel: "noopener", text: t("forms.open") }))))));
}

// ---------- one form ----------

const TABS = [["definition", t("tab.definition")], ["versions", t("tab.versions")], ["submissions", t("tab.submissions")], ["stats", t("tab.stats")], ["webhooks", t("tab.webhooks")]];

/** The form's tabs the token may open: listing webhooks is an editor's. */
function formTabs() {
  return TABS.filter(([key]) => key !== "webhooks" || mayEdit());
}

async function showForm(generation, formId, wantedTab) {
  if (!reaches(formId)) {
    appView.append(h("section", { class: "ad-panel" }, h("h2", { text: formId }),
      h("p", { class: "ad-message", "data-kind": "error", role: "alert", id: "form-unreachable", text: t("panel.unreachable", { token: me.name, form: formId }) })));
    return;
  }
  const tabs = formTabs();
  const tab = tabs.some(([key]) => key === wantedTab) ? wantedTab : "definition";
  const heading = h("h2", { class: "ad-grow", id: "form-title", text: formId });
  const facts = h("p", { class: "ad-form-facts", text: "" });
  const status = message();
  const head = h("section", { class: "ad-panel" },
    h("div", { class: "ad-row" }, heading,
      h("a", { href: `/f/${segment(formId)}`, target: "_blank", rel: "noopener", class: "fh-button fh-small fh-secondary", text: t("panel.openPublic") }),
      h("a", { href: `/v1/forms/${segment(formId)}?profile=formworks`, target: "_blank", rel: "noopener", class: "fh-button fh-small fh-secondary", text: "Formworks JSON" }),
      mayEdit() ? confirmButton(t("panel.delete"), t("admin.confirmDelete"), async () => {
        try {
          await api(`/v1/admin/forms/${segment(formId)}`, { method: "DELETE" });
          flash(t("panel.deleted", { form: formId }));
          location.hash = "#/forms";
        } catch (error) {
          say(status, describe(error), "error");
        }
      }, "fh-button fh-small fh-danger ad-delete-form") : null),
    facts, status,
    h("nav", { class: "ad-tabs", "aria-label": t("panel.sections") }, tabs.map(([key, label]) =>
      h("a", { href: formHash(formId, key), "aria-current": key === tab ? "page" : null, "data-tab": key, text: label }))));
  const body = h("div", { id: "tab-body" });
  appView.append(head, body);

  allItems("/v1/admin/forms").then((forms) => {
    if (!stillCurrent(generation)) return;
    const form = forms.find((f) => f.id === formId);
    if (form) {
      heading.textContent = form.title || form.id;
      facts.replaceChildren(h("code", { text: form.id }), ` · version ${form.version} · `,
        h("span", { id: "submission-count", text: `${form.submissionCount} submissions` }), ` · updated ${formatTime(form.updatedAt)}`);
    } else say(status, t("panel.notListed"), "error");
  }).catch((error) => stillCurrent(generation) && say(status, describe(error), "error"));

  if (tab === "versions") showVersions(generation, formId, body);
  else if (tab === "submissions") showSubmissions(generation, formId, body);
  else if (tab === "stats") showStats(generation, formId, body);
  else if (tab === "webhooks") showWebhooks(generation, formId, body);
  else showDefinition(generation, formId, body);
}

async function showStats(generation, formId, body) {
  const status = message();
  body.append(status);
  say(status, t("admin.loading"));
  try {
    const { data } = await api(`/v1/admin/forms/${segment(formId)}/stats?days=${STATS_DAYS}`);
    if (!stillCurrent(generation)) return;
    status.remove();
    body.append(statsPanel(data));
  } catch (error) {
    if (stillCurrent(generation)) say(status, describe(error), "error");
  }
}

/** Drops the fields the server adds to a stored definition, so the editor shows what one uploads. */
function editable(definition) {
  const copy = { ...definition };
  delete copy.version;
  delete copy.createdAt;
  delete copy.updatedAt;
  return copy;
}

async function showDefinition(generation, formId, body) {
  const status = message();
  body.append(status);
  say(status, t("admin.loading"));
  try {
    const { data, headers } = await api(`/v1/admin/forms/${segment(formId)}`);
    if (!stillCurrent(generation)) return;
    // The version the editor started from: saving sends it as If-Match, so a save by someone else
    // meanwhile is refused (412) instead of overwritten. The status goes only once the editor is
    // built, so a failure building it is still shown there.
    const panel = editorPanel(generation, JSON.stringify(editable(data), null, 2), formId, headers && headers.get("ETag"), !mayEdit());
    status.remove();
    body.append(panel);
  } catch (error) {
    if (stillCurrent(generation)) say(status, describe(error), "error");
  }
}

function showNewForm(generation) {
  appView.append(h("section", { class: "ad-panel" }, h("h2", { text: t("forms.new") }),
    h("p", { text: t("editor.newHelp") })),
  editorPanel(generation, JSON.stringify(NEW_FORM_TEMPLATE, null, 2), null));
}

/** The JSON editor with a backdrop that highlights error lines, its error list, and the live preview;
 *  `readOnly` shows the definition and its preview without the controls that change it. */
function editorPanel(generation, initialText, formId, etag, readOnly = false) {
  const textarea = h("textarea", {
    id: "definition-editor", class: "ad-textarea", spellcheck: "false", wrap: "off", autocapitalize: "off", readonly: readOnly,
    "aria-label": t("editor.textLabel"), "aria-describedby": "definition-errors",
  });
  textarea.value = initialText;
  // The backdrop holds only the marked lines, each placed at its line (20 px each) in a layer that
  // follows the textarea's scrolling: a copy of the whole text there would be laid out again on every
  // keystroke, a second or more for a definition of 100,000 lines.
  const marks = h("div", { class: "ad-marks" });
  const backdrop = h("div", { class: "ad-backdrop", "aria-hidden": "true" }, marks);
  const editor = h("div", { class: "ad-editor" }, backdrop, textarea);
  const errorList = h("ul", { class: "ad-errors", id: "definition-errors", "aria-live": "polite" });
  const status = message();
  status.id = "editor-status";
  const preview = h("div", { class: "ad-preview", id: "preview", "aria-label": t("editor.preview") });
  const save = h("button", { type: "button", class: "fh-button", id: "save-definition", text: formId ? t("editor.save") : t("editor.create") });
  const format = h("button", { type: "button", class: "fh-button fh-secondary", id: "format-definition", text: t("editor.format") });
  const file = h("input", { type: "file", accept: "application/json,.json", id: "definition-file", class: "ad-file" });
  const fileLabel = h("label", { for: "definition-file", class: "fh-button fh-secondary ad-file-label", text: t("editor.loadFile") });

  let problems = [];
  let activeIndex = -1;
  let previewTimer = null;

  const syncScroll = () => {
    marks.style.transform = `translate(${-textarea.scrollLeft}px, ${-textarea.scrollTop}px)`;
  };

  const locate = () => {
    let map = null;
    // Mapping every pointer of a large text takes a while: only when a problem has one to place.
    if (problems.some((p) => p.pointer !== undefined)) {
      try {
        JSON.parse(textarea.value);
        map = locatePointers(textarea.value);
      } catch {
        map = null;
      }
    }
    for (const problem of problems) {
      if (problem.pointer !== undefined && map) {
        const found = findPointer(map, problem.pointer);
        if (found) {
          problem.start = found.start;
          problem.end = found.end;
          problem.exact = found.exact;
        }
      }
      if (problem.start !== undefined) problem.line = lineColumn(textarea.value, problem.start).line;
    }
  };

  // The marks shown now (their lines, kinds and texts as JSON): typing that changes none of them touches nothing.
  let painted = "";

  const paintBackdrop = () => {
    try {
      const marked = new Map();
      problems.forEach((p, k) => {
        if (p.line) marked.set(p.line, marked.get(p.line) === "current" || k === activeIndex ? "current" : "error");
      });
      const text = textarea.value;
      const wanted = [];
      let start = 0;
      let lineNumber = 1;
      for (const line of [...marked.keys()].sort((x, y) => x - y)) {
        while (lineNumber < line && start >= 0) {
          start = text.indexOf("\n", start);
          if (start >= 0) start++;
          lineNumber++;
        }
        if (start < 0) break;
        const end = text.indexOf("\n", start);
        // The line's own text (transparent) makes the mark as wide as the line when it is long.
        wanted.push([line, marked.get(line), text.slice(start, end < 0 ? text.length : end) || " "]);
      }
      const key = JSON.stringify(wanted);
      if (key !== painted) {
        const fragment = document.createDocumentFragment();
        for (const [line, kind, lineText] of wanted) {
          const mark = h("mark", { class: kind === "current" ? "ad-current" : "", "data-line": line, text: lineText });
          mark.style.top = `${(line - 1) * LINE_HEIGHT}px`;
          fragment.append(mark);
        }
        marks.replaceChildren(fragment);
        painted = key;
      }
    } catch (error) {
      // The highlight is an aid: without it the text can still be edited and saved.
      painted = "";
      marks.replaceChildren();
      say(status, t("editor.noHighlight", { reason: describe(error) }), "error");
    }
    syncScroll();
  };

  const jumpTo = (index) => {
    const problem = problems[index];
    if (!problem || problem.start === undefined) return;
    activeIndex = index;
    paintBackdrop();
    textarea.focus();
    textarea.setSelectionRange(problem.start, problem.end ?? problem.start);
    textarea.scrollTop = Math.max(0, (problem.line - 4) * LINE_HEIGHT);
    syncScroll();
  };

  const showProblems = () => {
    locate();
    const items = document.createDocumentFragment();
    problems.forEach((problem, index) => items.append(h("li", {},
      h("button", {
        type: "button", class: "ad-error", "data-pointer": problem.pointer ?? "",
        "data-line": problem.line ?? "", onclick: () => jumpTo(index),
      },
      problem.pointer !== undefined ? h("code", { text: problem.pointer || "/" }) : null,
      problem.line ? ` line ${problem.line}${problem.exact === false ? " (missing here)" : ""}: ` : " ",
      problem.message || problem.code || t("editor.invalid")))));
    errorList.replaceChildren(items);
    paintBackdrop();
  };

  const refreshPreview = () => {
    let definition;
    try {
      definition = JSON.parse(textarea.value);
    } catch (error) {
      const position = /position (\d+)/.exec(String(error.message));
      const start = position ? Number(position[1]) : undefined;
      problems = [{ code: "syntax", message: t("editor.syntax", { reason: error.message }), start, end: start }];
      activeIndex = -1;
      showProblems();
      return;
    }
    problems = problems.filter((p) => p.code !== "syntax");
    showProblems();
    const container = h("div");
    try {
      renderForm(container, definition, { headingLevel: 3 });
      preview.replaceChildren(container);
    } catch (error) {
      preview.replaceChildren(h("p", { class: "ad-message", "data-kind": "error", text: t("editor.previewFailed", { reason: error.message }) }));
    }
  };

  textarea.addEventListener("scroll", syncScroll);
  textarea.addEventListener("input", () => {
    paintBackdrop();
    clearTimeout(previewTimer);
    previewTimer = setTimeout(refreshPreview, PREVIEW_DELAY_MS);
  });
  textarea.addEventListener("keydown", (event) => {
    // Tab indents inside the editor; Escape then Tab still leaves it, so keyboard users are not trapped.
    if (event.key === "Tab" && !event.shiftKey && !readOnly && !textarea.dataset.escaped) {
      event.preventDefault();
      textarea.setRangeText("  ", textarea.selectionStart, textarea.selectionEnd, "end");
      textarea.dispatchEvent(new Event("input"));
    } else if (event.key === "Escape") textarea.dataset.escaped = "1";
    else delete textarea.dataset.escaped;
  });

  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    textarea.value = await chosen.text();
    file.value = "";
    problems = [];
    refreshPreview();
    say(status, t("editor.loaded", { name: chosen.name }));
  });

  format.addEventListener("click", () => {
    try {
      textarea.value = JSON.stringify(JSON.parse(textarea.value), null, 2);
      refreshPreview();
    } catch (error) {
      say(status, t("editor.cannotFormat", { reason: error.message }), "error");
    }
  });

  save.addEventListener("click", async () => {
    // A preview still waiting for its delay is drawn now, so that it cannot redraw the list of
    // problems after the server's answer has filled it (and announce it a second time).
    clearTimeout(previewTimer);
    let definition;
    try {
      definition = JSON.parse(textarea.value);
    } catch {
      refreshPreview();
      say(status, t("editor.fixSyntax"), "error");
      return;
    }
    // Editing saves to the form being edited (a different id in the text is the server's idMismatch,
    // not a silent save to another form); a new form is created with POST, which refuses an id in use.
    const id = formId;
    refreshPreview();
    save.disabled = true;
    say(status, t("admin.saving"));
    try {
      const { status: code, data, headers } = id
        ? await api(`/v1/admin/forms/${segment(id)}`, { method: "PUT", body: textarea.value, headers: etag ? { "If-Match": etag } : {} })
        : await api("/v1/admin/forms", { method: "POST", body: textarea.value });
      if (!stillCurrent(generation)) return;
      problems = [];
      showProblems();
      const savedId = (data && data.id) || id;
      const version = (data && data.version) ?? versionFromETag(headers);
      const text = code === 201
        ? t(version ? "editor.createdVersion" : "editor.created", { form: savedId, version: String(version) })
        : t(version ? "editor.savedVersion" : "editor.saved", { form: savedId, version: String(version) });
      if (savedId !== formId) {
        flash(text);
        location.hash = formHash(savedId, "definition");
      } else {
        flash(text);
        route();
      }
    } catch (error) {
      if (!stillCurrent(generation)) return;
      if (error instanceof ProblemError && error.status === 422 && error.errors.length) {
        problems = error.errors.map((e) => ({ pointer: typeof e.pointer === "string" ? e.pointer : undefined, code: e.code, message: e.message }));
        activeIndex = -1;
        showProblems();
        say(status, t("editor.notSaved", { count: problems.length }), "error");
        jumpTo(0);
      } else if (error instanceof ProblemError && error.status === 412) {
        say(status, t("editor.conflict"), "error");
      } else say(status, describe(error), "error");
    } finally {
      save.disabled = false;
    }
  });

  refreshPreview();
  const controls = readOnly
    ? h("p", { id: "read-only-note", text: t("editor.readOnly", { token: me.name, role: me.role }) })
    : h("div", { class: "ad-row" }, save, format, file, fileLabel);
  return h("section", { class: "ad-panel", "aria-label": readOnly ? t("tab.definition") : t("editor.label") },
    status,
    h("div", { class: "ad-editor-grid" },
      h("div", {}, controls, editor, errorList),
      h("div", {}, h("h3", { text: t("editor.preview") }), preview)));
}

// ---------- versions ----------

async function showVersions(generation, formId, body) {
  const status = message();
  const panel = h("section", { class: "ad-panel", "aria-labelledby": "versions-title" }, h("h2", { id: "versions-title", text: t("versions.title") }), status);
  body.append(panel);
  let items;
  try {
    items = await allItems(`/v1/admin/forms/${segment(formId)}/versions`);
  } catch (error) {
    if (stillCurrent(generation)) say(status, describe(error), "error");
    return;
  }
  if (!stillCurrent(generation)) return;
  items = [...(items || [])].sort((a, b) => a.version - b.version);
  panel.append(table([t("col.version"), t("col.title"), t("col.created"), ""], items.map((v) => h("tr", {},
    h("td", { text: v.version }), h("td", { text: v.title || "" }), h("td", { class: "ad-nowrap", text: formatTime(v.createdAt) }),
    h("td", {}, h("a", { href: `/f/${segment(formId)}?version=${v.version}`, target: "_blank", rel: "noopener", text: t("versions.open") }))))));
  if (items.length < 2) {
    panel.append(h("p", { text: t("versions.tooFew") }));
    return;
  }
  const options = () => items.map((v) => h("option", { value: String(v.version), text: `v${v.version}` }));
  const from = h("select", { class: "fh-input", id: "diff-from" }, options());
  const to = h("select", { class: "fh-input", id: "diff-to" }, options());
  from.value = String(items[items.length - 2].version);
  to.value = String(items[items.length - 1].version);
  const output = h("div", { id: "diff-output" });
  const diffStatus = message();
  const show = async () => {
    say(diffStatus, t("admin.loading"));
    try {
      const [a, b] = await Promise.all([from.value, to.value].map((v) =>
        api(`/v1/admin/forms/${segment(formId)}?version=${encodeURIComponent(v)}`).then((r) => JSON.stringify(editable(r.data), null, 2))));
      if (!stillCurrent(generation)) return;
      diffStatus.textContent = "";
      renderDiff(output, diffLines(a, b), from.value, to.value);
    } catch (error) {
      if (stillCurrent(generation)) say(diffStatus, describe(error), "error");
    }
  };
  panel.append(h("h3", { text: t("versions.compare") }),
    h("div", { class: "ad-row" }, h("label", {}, t("versions.from"), from), h("label", {}, t("versions.to"), to),
      h("button", { type: "button", class: "fh-button fh-small", id: "show-diff", text: t("versions.showDiff"), onclick: show })),
    diffStatus, output);
  show();
}

function renderDiff(output, entries, fromVersion, toVersion) {
  const changes = entries.filter((e) => e.op !== " ").length;
  const summary = h("p", { text: changes === 0 ? t("diff.identical", { from: fromVersion, to: toVersion }) : t("diff.summary", { from: fromVersion, to: toVersion, removed: entries.filter((e) => e.op === "-").length, added: entries.filter((e) => e.op === "+").length }) });
  const lines = foldDiff(entries, 3).map((e) => {
    if (e.gap) return h("div", { class: "ad-gap", text: `⋯ ${t("diff.gap", { count: e.gap })}` });
    const cls = e.op === "+" ? "ad-add" : e.op === "-" ? "ad-del" : "";
    return h("div", { class: cls, "data-op": e.op, text: `${e.op} ${e.text}` });
  });
  output.replaceChildren(summary, changes ? h("div", { class: "ad-diff", role: "region", "aria-label": t("diff.label"), tabindex: "0" }, lines) : "");
}

// ---------- submissions ----------

async function showSubmissions(generation, formId, body) {
  const status = message();
  const limit = h("select", { class: "fh-input", id: "page-size" }, [10, 25, 50, 100].map((n) => h("option", { value: String(n), text: String(n) })));
  limit.value = "25";
  const prev = h("button", { type: "button", class: "fh-button fh-small fh-secondary", id: "page-prev", text: t("pager.previous") });
  const next = h("button", { type: "button", class: "fh-button fh-small fh-secondary", id: "page-next", text: t("pager.next") });
  const pageInfo = h("span", { id: "page-info" });
  const rowsHolder = h("div", { id: "submissions-table" });
  const detail = h("div", { id: "submission-detail" });
  const lookup = h("input", { class: "fh-input", id: "submission-lookup", placeholder: t("subs.idPlaceholder"), spellcheck: "false" });
  const find = h("form", { class: "ad-row" }, h("label", { class: "ad-grow" }, t("subs.find"), lookup),
    h("button", { type: "submit", class: "fh-button fh-small fh-secondary", text: t("subs.show") }));
  find.addEventListener("submit", (event) => {
    event.preventDefault();
    if (lookup.value.trim()) showSubmission(generation, lookup.value.trim(), detail);
  });
  const panel = h("section", { class: "ad-panel", "aria-labelledby": "subs-title" },
    h("h2", { id: "subs-title", text: t("col.submissions") }),
    h("div", { class: "ad-row" },
      h("label", {}, t("subs.perPage"), limit),
      exportButton("csv", () => formId, status, "download-csv"),
      exportButton("ndjson", () => formId, status, "download-ndjson")),
    status, rowsHolder,
    h("div", { class: "ad-row" }, prev, pageInfo, next), find);
  body.append(panel, detail);

  const pager = new CursorPager(prev, next, () => load());
  let latest = 0;
  const load = async () => {
    const ticket = ++latest;
    say(status, t("admin.loading"));
    const params = new URLSearchParams({ limit: limit.value });
    if (pager.cursor) params.set("cursor", pager.cursor);
    try {
      const { data } = await api(`/v1/admin/forms/${segment(formId)}/submissions?${params}`);
      // A slower, older answer must not overwrite a newer page.
      if (!stillCurrent(generation) || ticket !== latest) return;
      status.textContent = "";
      pager.arrived(data.nextCursor);
      const items = data.items || [];
      rowsHolder.replaceChildren(items.length === 0 ? h("p", { text: pager.page === 0 ? t("subs.empty") : t("subs.noMore") }) :
        table([t("col.submission"), t("col.version"), t("col.received"), t("col.values")], items.map((s) => h("tr", { "data-submission-id": s.id },
          h("td", {}, h("button", {
            type: "button", class: "fh-button fh-small fh-secondary ad-submission-open", "aria-label": t("subs.showOne", { id: s.id }),
            onclick: () => showSubmission(generation, s.id, detail),
          }, h("code", { text: s.id }))),
          h("td", { text: s.formVersion ?? "" }),
          h("td", { class: "ad-nowrap", text: formatTime(s.receivedAt) }),
          h("td", { class: "ad-values" }, h("details", {},
            h("summary", { text: compact(s.values) }),
            h("pre", { class: "ad-mono", text: valuesJSON(s.values, 2) })))))));
      pageInfo.textContent = t("subs.page", { page: pager.page + 1 });
    } catch (error) {
      if (stillCurrent(generation)) say(status, describe(error), "error");
    }
  };
  limit.addEventListener("change", () => {
    pager.restart();
    load();
  });
  load();
}

/** A button that saves the submissions of the form `formOf()` names as `format` (csv or ndjson),
 *  fetched with the token so that the token never goes into a link; `status` tells how it went. */
function exportButton(format, formOf, status, id) {
  const button = h("button", { type: "button", class: `fh-button fh-small ad-export-${format}`, id, text: t("export.download", { format: format.toUpperCase() }) });
  button.addEventListener("click", async () => {
    const formId = formOf();
    if (!formId) {
      say(status, t("export.needId"), "error");
      return;
    }
    button.disabled = true;
    say(status, t("export.preparing", { format: format.toUpperCase() }));
    try {
      const { data } = await api(`/v1/admin/forms/${segment(formId)}/submissions?format=${format}`, { as: "blob" });
      saveBlob(data, `${formId}-submissions.${format}`);
      say(status, t("export.done", { file: `${formId}-submissions.${format}`, size: formatSize(data.size) }), "ok");
    } catch (error) {
      say(status, describe(error), "error");
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

/** An exporter's console: the export buttons of each of its forms, or of a form it names when it
 *  reaches every form (it may not list them). */
function showExports() {
  const status = message();
  status.id = "exports-status";
  const panel = h("section", { class: "ad-panel", id: "exports-panel", "aria-labelledby": "exports-title" },
    h("h2", { id: "exports-title", text: t("export.title") }),
    h("p", { text: t(me.forms === null ? "export.helpAll" : "export.helpScoped", { token: me.name }) }));
  if (me.forms === null) {
    const field = h("input", { class: "fh-input", id: "export-form-id", placeholder: t("export.formId"), spellcheck: "false", autocomplete: "off" });
    const formOf = () => field.value.trim();
    panel.append(h("div", { class: "ad-row", id: "export-form" }, h("label", { class: "ad-grow" }, t("export.formId"), field),
      exportButton("csv", formOf, status), exportButton("ndjson", formOf, status)));
  } else if (me.forms.length === 0) {
    panel.append(h("p", { text: t("export.noForm") }));
  } else {
    panel.append(table([t("col.form"), ""], me.forms.map((formId) => h("tr", { "data-form-id": formId },
      h("td", {}, h("code", { text: formId })),
      h("td", { class: "ad-nowrap" }, exportButton("csv", () => formId, status), " ", exportButton("ndjson", () => formId, status))))));
  }
  panel.append(status);
  appView.append(panel);
}

/** One submission in full (`GET /v1/admin/submissions/{sid}`), with the body exactly as it was sent (`/raw`). */
async function showSubmission(generation, id, target) {
  const status = message();
  target.replaceChildren(h("section", { class: "ad-panel", "aria-label": t("subs.one", { id }) }, h("h2", { text: t("subs.one", { id }) }), status));
  say(status, t("admin.loading"));
  try {
    const [{ data: s }, raw] = await Promise.all([
      api(`/v1/admin/submissions/${segment(id)}`),
      api(`/v1/admin/submissions/${segment(id)}/raw`, { as: "text" }).then((r) => r.data).catch(() => null),
    ]);
    if (!stillCurrent(generation)) return;
    status.remove();
    const facts = [[t("col.form"), s.formId], [t("col.version"), s.formVersion], [t("col.received"), formatTime(s.receivedAt)],
      ["Idempotency-Key", s.idempotencyKey], [t("subs.clientAddress"), s.clientAddress]].filter(([, v]) => v !== undefined && v !== null);
    target.firstChild.append(
      h("dl", { class: "fh-facts" }, facts.map(([k, v]) => [h("dt", { text: k }), h("dd", { text: String(v) })])),
      filesTable(storedFiles(s.values, [], [])),
      h("h3", { text: t("subs.stored") }), h("pre", { class: "ad-mono ad-pre", id: "submission-values", text: valuesJSON(s.values, 2) }),
      ...(raw === null ? [] : [h("h3", { text: t("subs.raw") }), h("pre", { class: "ad-mono ad-pre", id: "submission-raw", text: raw })]));
    target.scrollIntoView({ block: "nearest" });
  } catch (error) {
    if (stillCurrent(generation)) say(status, describe(error), "error");
  }
}

/** Every stored file in a submission's values, with the key path of the input that holds it. */
function storedFiles(value, path, out) {
  if (isStoredFile(value)) out.push({ path: formatPath(path), file: value });
  else if (Array.isArray(value)) value.forEach((v, i) => storedFiles(v, [...path, i], out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) storedFiles(v, [...path, k], out);
  return out;
}

/** A submission's files, each with a Download button that fetches it with the token and saves it under its name. */
function filesTable(found) {
  if (found.length === 0) return null;
  const status = message();
  return h("div", { id: "submission-files" }, h("h3", { text: t("files.title") }), status,
    table([t("col.field"), t("col.file"), t("col.type"), t("col.size"), ""], found.map(({ path, file }) => {
      const saveAs = String(file.filename || file.id);
      const shown = escapeBidi(saveAs);
      const button = h("button", {
        type: "button", class: "fh-button fh-small fh-secondary ad-file-download", "data-file-id": file.id,
        "aria-label": t("files.downloadOne", { name: shown }), text: t("files.download"),
      });
      button.addEventListener("click", async () => {
        button.disabled = true;
        say(status, t("files.downloading", { name: shown }));
        try {
          const { data } = await api(`/v1/admin/files/${segment(file.id)}`, { as: "blob" });
          saveBlob(data, saveAs);
          say(status, t("files.downloaded", { name: shown, size: formatSize(data.size) }), "ok");
        } catch (error) {
          say(status, describe(error), "error");
        } finally {
          button.disabled = false;
        }
      });
      return h("tr", { "data-file-id": file.id },
        h("td", {}, h("code", { text: path })),
        h("td", { class: "ad-file-name", text: shown }),
        h("td", { text: file.contentType || "—" }),
        h("td", { class: "ad-nowrap", text: formatSize(file.size) }),
        h("td", {}, button));
    })));
}

/** Bidi embedding, override and isolate controls: invisible, and one in a value (U+202E) reverses the text
 * after it, so a preview could show other values than were sent. */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/** Text with the bidi controls written as escapes (`\u202E`), so they show instead of reordering it. */
function escapeBidi(text) {
  return text.replace(BIDI_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Values as JSON with the bidi controls escaped: the same JSON, shown as sent. */
function valuesJSON(values, indent) {
  return escapeBidi(JSON.stringify(values ?? {}, null, indent));
}

/** A one-line preview of values, cut at 120 characters counted as code points (never half of an emoji). */
function compact(values) {
  const textValue = valuesJSON(values);
  const points = [];
  for (const point of textValue) {
    points.push(point);
    if (points.length > 120) return `${points.slice(0, 117).join("")}…`;
  }
  return textValue;
}

// ---------- webhooks ----------

async function showWebhooks(generation, formId, body) {
  const status = message();
  const secretBox = h("div", { id: "secret-box", hidden: true });
  const url = h("input", { class: "fh-input", id: "webhook-url", type: "url", placeholder: "https://example.org/hooks/formhouse", required: true });
  const list = h("div", { id: "webhooks-table" });
  const showSecret = (what, data) => {
    secretBox.hidden = false;
    const code = h("code", { id: "webhook-secret", text: data.secret || t("hooks.noSecret") });
    const copy = h("button", { type: "button", class: "fh-button fh-small fh-secondary", text: t("hooks.copy") });
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(data.secret);
        copy.textContent = t("hooks.copied");
      } catch {
        const range = document.createRange();
        range.selectNodeContents(code);
        getSelection().removeAllRanges();
        getSelection().addRange(range);
        copy.textContent = t("hooks.selected");
      }
    });
    const dismiss = h("button", { type: "button", class: "fh-button fh-small fh-secondary", text: t("hooks.dismiss") });
    dismiss.addEventListener("click", () => {
      secretBox.hidden = true;
      secretBox.replaceChildren();
    });
    secretBox.replaceChildren(h("div", { class: "ad-secret", role: "alert" },
      h("strong", { text: `${t("hooks.secretFor", { what, url: data.url || t("hooks.theEndpoint") })} ` }),
      h("span", { text: t("hooks.secretOnce") }),
      code, h("div", { class: "ad-row" }, copy, dismiss)));
  };
  const load = async () => {
    try {
      const { data } = await api(`/v1/admin/forms/${segment(formId)}/webhooks`);
      if (!stillCurrent(generation)) return;
      const items = data.items || [];
      list.replaceChildren(items.length === 0 ? h("p", { text: t("hooks.empty") }) :
        table([t("col.endpoint"), "URL", t("col.created"), t("col.state"), ""], items.map((w) => h("tr", { "data-webhook-id": w.id },
          h("td", {}, h("code", { text: w.id })),
          h("td", { class: "ad-values", text: w.url }),
          h("td", { class: "ad-nowrap", text: formatTime(w.createdAt) }),
          h("td", { class: "ad-webhook-state", text: w.disabled ? `disabled${w.disabledReason ? `: ${w.disabledReason}` : ""}` : "active" }),
          h("td", { class: "ad-nowrap" },
            h("button", {
              type: "button", class: "fh-button fh-small fh-secondary ad-rotate", text: t("hooks.rotate"),
              onclick: async () => {
                try {
                  const { data: rotated } = await api(`/v1/admin/webhooks/${segment(w.id)}/rotate`, { method: "POST" });
                  showSecret(t("hooks.newSecret"), { url: w.url, ...rotated });
                  say(status, t("hooks.rotated"), "ok");
                } catch (error) {
                  say(status, describe(error), "error");
                }
              },
            }), " ",
            confirmButton(t("admin.delete"), t("admin.confirmDelete"), async () => {
              try {
                await api(`/v1/admin/webhooks/${segment(w.id)}`, { method: "DELETE" });
                say(status, t("hooks.deleted", { id: w.id }), "ok");
                load();
              } catch (error) {
                say(status, describe(error), "error");
              }
            }, "fh-button fh-small fh-danger ad-delete"))))));
    } catch (error) {
      if (stillCurrent(generation)) say(status, describe(error), "error");
    }
  };
  const add = h("form", { class: "ad-row", id: "webhook-form" },
    h("label", { class: "ad-grow" }, "Endpoint URL", url),
    h("button", { type: "submit", class: "fh-button fh-small", id: "add-webhook", text: t("hooks.add") }));
  add.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const { data } = await api(`/v1/admin/forms/${segment(formId)}/webhooks`, { method: "POST", body: { url: url.value.trim() } });
      showSecret(t("hooks.added"), data);
      url.value = "";
      say(status, t("hooks.addedId", { id: data.id }), "ok");
      load();
    } catch (error) {
      say(status, describe(error), "error");
    }
  });
  body.append(h("section", { class: "ad-panel", "aria-labelledby": "hooks-title" },
    h("div", { class: "ad-row" }, h("h2", { id: "hooks-title", class: "ad-grow", text: t("hooks.title") }),
      h("a", { href: `#/deliveries?formId=${encodeURIComponent(formId)}`, class: "fh-button fh-small fh-secondary", text: t("nav.deliveries") })),
    add, status, secretBox, list));
  load();
}

// ---------- deliveries ----------

function deliveriesQuery() {
  const query = location.hash.split("?")[1] || "";
  return new URLSearchParams(query);
}

async function showDeliveries(generation) {
  const query = deliveriesQuery();
  const status = message();
  const boxes = DELIVERY_STATUSES.map((name) => h("input", { type: "checkbox", value: name, id: `status-${name}` }));
  const chosen = new Set((query.get("status") || "").split(",").filter(Boolean));
  for (const box of boxes) box.checked = chosen.has(box.value);
  const formFilter = h("select", { class: "fh-input", id: "delivery-form" }, h("option", { value: "", text: t("deliveries.allForms") }));
  const wantedForm = query.get("formId") || "";
  if (wantedForm) {
    formFilter.append(h("option", { value: wantedForm, text: wantedForm }));
    formFilter.value = wantedForm;
  }
  const refresh = h("button", { type: "button", class: "fh-button fh-small", id: "refresh-deliveries", text: t("deliveries.refresh") });
  const list = h("div", { id: "deliveries-table" });
  const detail = h("div", { id: "delivery-detail" });
  const prev = h("button", { type: "button", class: "fh-button fh-small fh-secondary", text: t("pager.previous") });
  const next = h("button", { type: "button", class: "fh-button fh-small fh-secondary", text: t("pager.next") });
  appView.append(h("section", { class: "ad-panel", "aria-labelledby": "deliveries-title" },
    h("h2", { id: "deliveries-title", text: t("deliveries.title") }),
    h("div", { class: "ad-row" },
      h("fieldset", { class: "fh-choices ad-row" }, h("legend", { class: "fh-label", text: t("col.status") }),
        boxes.map((box) => h("span", { class: "fh-choice" }, box, h("label", { for: box.id, text: box.value })))),
      h("label", {}, t("col.form"), formFilter), refresh),
    status, list, h("div", { class: "ad-row" }, prev, next)), detail);

  allItems("/v1/admin/forms").then((forms) => {
    if (!stillCurrent(generation)) return;
    for (const form of forms) {
      if (form.id !== wantedForm) formFilter.append(h("option", { value: form.id, text: form.title ? `${form.title} (${form.id})` : form.id }));
    }
  }).catch(() => {});

  const pager = new CursorPager(prev, next, () => load());
  let selected = null;

  let latest = 0;
  const load = async () => {
    const ticket = ++latest;
    const params = new URLSearchParams();
    const statuses = boxes.filter((b) => b.checked).map((b) => b.value);
    if (statuses.length) params.set("status", statuses.join(","));
    if (formFilter.value) params.set("formId", formFilter.value);
    if (pager.cursor) params.set("cursor", pager.cursor);
    say(status, t("admin.loading"));
    try {
      const { data } = await api(`/v1/admin/deliveries${params.size ? `?${params}` : ""}`);
      if (!stillCurrent(generation) || ticket !== latest) return;
      status.textContent = "";
      pager.arrived(data.nextCursor);
      const items = data.items || [];
      list.replaceChildren(items.length === 0 ? h("p", { text: t("deliveries.empty") }) :
        table([t("col.status"), t("col.delivery"), t("col.form"), t("col.submission"), t("col.attempts"), t("col.nextAttempt"), t("col.lastAnswer"), ""], items.map((d) =>
          h("tr", { "data-delivery-id": d.id, class: d.id === selected ? "ad-selected" : "" },
            h("td", {}, h("span", { class: "ad-status", "data-status": d.status, text: d.status })),
            h("td", {}, h("code", { text: d.id })),
            h("td", { text: d.formId ?? "" }),
            h("td", {}, h("code", { text: d.submissionId ?? "" })),
            h("td", { class: "ad-attempts", text: d.attempts ?? 0 }),
            h("td", { class: "ad-nowrap", text: d.nextAttemptAt ? formatTime(d.nextAttemptAt) : "—" }),
            h("td", { class: "ad-values", text: [d.lastStatusCode, d.lastError].filter((x) => x !== null && x !== undefined && x !== "").join(" · ") || "—" }),
            h("td", {}, h("button", { type: "button", class: "fh-button fh-small fh-secondary ad-details", text: t("col.attempts"), onclick: () => showDelivery(d.id) }))))));
    } catch (error) {
      if (stillCurrent(generation)) say(status, describe(error), "error");
    }
  };

  const showDelivery = async (id) => {
    selected = id;
    for (const row of list.querySelectorAll("tr[data-delivery-id]")) row.classList.toggle("ad-selected", row.dataset.deliveryId === id);
    const detailStatus = message();
    detail.replaceChildren(h("section", { class: "ad-panel" }, h("h2", { text: t("deliveries.one", { id }) }), detailStatus));
    say(detailStatus, t("admin.loading"));
    try {
      const { data: d } = await api(`/v1/admin/deliveries/${segment(id)}`);
      if (!stillCurrent(generation)) return;
      detailStatus.textContent = "";
      const redeliver = h("button", { type: "button", class: "fh-button fh-small", id: "redeliver", text: t("deliveries.redeliver") });
      redeliver.addEventListener("click", async () => {
        redeliver.disabled = true;
        try {
          await api(`/v1/admin/deliveries/${segment(id)}/redeliver`, { method: "POST" });
          say(detailStatus, t("deliveries.queued"), "ok");
          await load();
          await showDelivery(id);
        } catch (error) {
          say(detailStatus, describe(error), "error");
        } finally {
          redeliver.disabled = false;
        }
      });
      const log = Array.isArray(d.attemptLog) ? d.attemptLog : [];
      detail.firstChild.append(
        h("dl", { class: "fh-facts" },
          h("dt", { text: t("col.status") }), h("dd", {}, h("span", { class: "ad-status", "data-status": d.status, text: d.status })),
          h("dt", { text: t("col.endpoint") }), h("dd", {}, h("code", { text: d.endpointId ?? "" }), d.url ? ` ${d.url}` : ""),
          h("dt", { text: t("col.submission") }), h("dd", {}, h("code", { text: d.submissionId ?? "" })),
          h("dt", { text: t("col.attempts") }), h("dd", { text: d.attempts ?? log.length }),
          h("dt", { text: t("col.nextAttempt") }), h("dd", { text: d.nextAttemptAt ? formatTime(d.nextAttemptAt) : "—" })),
        mayEdit() ? h("div", { class: "ad-row" }, redeliver) : null,
        log.length === 0 ? h("p", { text: t("deliveries.noAttempts") }) :
          table([t("col.attempted"), t("col.status"), t("col.duration"), t("col.answer")], log.map((a) => h("tr", {},
            h("td", { class: "ad-nowrap", text: formatTime(a.attemptedAt) }),
            h("td", { text: a.statusCode ?? "—" }),
            h("td", { text: a.durationMs !== undefined && a.durationMs !== null ? `${a.durationMs} ms` : "—" }),
            h("td", { class: "ad-values", text: a.error || a.responseExcerpt || "" }))), "ad-attempt-log"));
    } catch (error) {
      if (stillCurrent(generation)) say(detailStatus, describe(error), "error");
    }
  };

  const restart = () => {
    pager.restart();
    load();
  };
  for (const box of boxes) box.addEventListener("change", restart);
  formFilter.addEventListener("change", restart);
  refresh.addEventListener("click", load);
  load();
}

route();
