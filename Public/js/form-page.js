// The public form page served at /f/{id}: loads the definition, renders it, validates through the
// server's own engine while the user types, uploads picked files, saves a draft as the person types
// (drafts.js), resumes one from a link or this device, and submits through the draft, or the values
// map with an Idempotency-Key when there is none.

import { request, upload, ProblemError, NetworkError, versionFromETag, newIdempotencyKey, segment } from "./api.js";
import { renderForm, applyStyle, formatPath } from "./renderer.js";
import { contentDisposition, isStoredFile, describeStoredFile } from "./files.js";
import { DraftKeeper, draftFromLink, storedDraft } from "./drafts.js";
import { t, language, translatePage, formatDateTime } from "./i18n.js";

const VALIDATE_DELAY_MS = 400;

const statusEl = document.getElementById("status");
const root = document.getElementById("form-root");
const summary = document.getElementById("summary");
const receipt = document.getElementById("receipt");
const draftBar = document.getElementById("draft");

const params = new URLSearchParams(location.search);
const pathMatch = /^\/f\/([^/]+)\/?$/.exec(location.pathname);
const formId = pathMatch ? decodeURIComponent(pathMatch[1]) : params.get("id");
const requestedVersion = params.get("version");

let definition = null;
let formVersion = null;
let view = null;
let validateTimer = null;
let validateSequence = 0;
let submitting = false;
let lastSubmission = { body: null, key: null };
/** Keeps the draft of what is typed here; null on a page showing a version asked for with ?version=. */
let drafts = null;

document.documentElement.lang = language;
translatePage();

function showStatus(message, kind = "info") {
  statusEl.textContent = message;
  statusEl.dataset.kind = kind;
  statusEl.hidden = !message;
}

function describe(error) {
  if (error instanceof NetworkError) return error.message;
  if (error instanceof ProblemError) return error.detail ? `${error.title}: ${error.detail}` : error.title;
  return String(error && error.message ? error.message : error);
}

/**
 * Fetches the definition (`version`, else the current one) into `definition` and `formVersion`, in
 * the language the browser asks for (its Accept-Language), which `/validate`'s messages follow too.
 */
async function fetchDefinition(version) {
  const query = version ? `?version=${encodeURIComponent(version)}` : "";
  const { data, headers } = await request(`/v1/forms/${segment(formId)}${query}`);
  definition = data;
  formVersion = Number.isInteger(data && data.version) ? data.version : versionFromETag(headers);
  // The server picked the form's language from the browser's Accept-Language; screen readers and
  // hyphenation follow <html lang>.
  const language = headers.get("Content-Language");
  if (language) document.documentElement.lang = language;
}

function newKeeper() {
  return new DraftKeeper({
    formId,
    version: () => formVersion,
    read: () => view.values(),
    show: (values) => view && view.fill(values),
    bar: draftBar,
  });
}

/** Opens the draft `named` (`{ draftId, token }`): resolves to it, or to null with the reason shown. */
async function openDraft(named) {
  const gone = t("draft.gone");
  if (!named.token) {
    showStatus(gone, "error");
    return null;
  }
  try {
    return await drafts.open(named.draftId, named.token);
  } catch (error) {
    showStatus(error instanceof ProblemError && error.status === 404 ? gone : t("draft.notLoaded", { reason: describe(error) }), "error");
    return null;
  }
}

async function load() {
  if (!formId) {
    showStatus(t("form.noId"), "error");
    return;
  }
  const named = draftFromLink(formId) || (requestedVersion ? null : storedDraft(formId));
  if (named || !requestedVersion) drafts = newKeeper();
  const draft = named ? await openDraft(named) : null;
  // A draft is answered in the version it was started on; a page asked for another version keeps none.
  if (!draft && requestedVersion) drafts = null;
  const version = draft && Number.isInteger(draft.formVersion) ? String(draft.formVersion) : requestedVersion;
  try {
    await fetchDefinition(version);
  } catch (error) {
    if (error instanceof ProblemError && error.status === 404 && version) {
      // The server says which: no such form, or no such version (and which one is current).
      showStatus(t("form.versionMissing", { reason: describe(error) }), "error");
    } else if (error instanceof ProblemError && error.status === 404) {
      showStatus(t("form.missing"), "error");
    } else {
      showStatus(t("form.notLoaded", { reason: describe(error) }), "error");
    }
    return;
  }
  document.title = `${definition.title || formId} · Formhouse`;
  applyStyle(document.documentElement, definition.style);
  // Compared as numbers, as the server reads the parameter ("01" is version 1).
  const asked = /^[+-]?\d+$/.test(requestedVersion || "") ? Number(requestedVersion) : null;
  if (!draft && requestedVersion && formVersion !== null && asked !== formVersion) {
    // Called the current one only when it is: the version the form is at now is a second request.
    let current = null;
    try {
      const latest = await request(`/v1/forms/${segment(formId)}`);
      current = Number.isInteger(latest.data && latest.data.version) ? latest.data.version : versionFromETag(latest.headers);
    } catch {
      current = null;
    }
    showStatus(t(current === formVersion ? "form.otherVersionCurrent" : "form.otherVersion", { asked: requestedVersion, shown: String(formVersion) }));
  } else if (!named || draft) showStatus("");
  mount(draft ? draft.values : undefined);
  if (draft) {
    drafts.start(view.values());
    validateNow();
  }
}

/** Draws the form, with `values` when given (a resumed draft). */
function mount(values) {
  receipt.hidden = true;
  summary.hidden = true;
  lastSubmission = { body: null, key: null };
  view = renderForm(root, definition, { onChange: changed, onBlur: validateNow, upload: uploadFile, values });
  root.hidden = false;
  // A form too large to draw (stored before the server's limits) says why, and cannot be submitted.
  if (view.refusal) return;
  const submit = document.createElement("button");
  submit.type = "submit";
  submit.className = "fh-button fh-primary fh-submit";
  submit.textContent = t("form.submit");
  const actions = document.createElement("div");
  actions.className = "fh-actions";
  actions.append(submit);
  view.element.append(actions);
  view.element.addEventListener("submit", onSubmit);
}

/** Sends one picked file for the input at key path `path` (the renderer's `upload` option); a failure
 * becomes an Error whose message says what the person can do. */
async function uploadFile(file, path, { onProgress, signal }) {
  try {
    const { data } = await upload(`/v1/forms/${segment(formId)}/uploads?field=${encodeURIComponent(path)}`, file, {
      onProgress, signal, headers: { "Content-Disposition": contentDisposition(file.name) },
    });
    return data;
  } catch (error) {
    if (error && error.name === "AbortError") throw error;
    throw new Error(uploadProblem(error));
  }
}

function uploadProblem(error) {
  if (!(error instanceof ProblemError)) return describe(error);
  if (error.status === 413) {
    return error.detail || t("upload.tooLarge");
  }
  if (error.status === 422) {
    const messages = error.errors.map((e) => e.message || e.code).filter(Boolean);
    return messages.length ? messages.join(" ") : error.detail || error.title;
  }
  if ([429, 503, 507].includes(error.status)) {
    const wait = error.headers && error.headers.get("Retry-After");
    return wait && /^\d+$/.test(wait) ? t("upload.busyFor", { count: Number(wait) }) : t("upload.busy");
  }
  return describe(error);
}

function payload() {
  const body = { values: view.values() };
  if (formVersion !== null) body.formVersion = formVersion;
  return body;
}

function changed() {
  if (drafts) drafts.changed();
  scheduleValidation();
}

function scheduleValidation() {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(validateNow, VALIDATE_DELAY_MS);
}

async function validateNow() {
  clearTimeout(validateTimer);
  if (!view || submitting) return;
  const sequence = ++validateSequence;
  const current = view;
  try {
    const { data } = await request(`/v1/forms/${segment(formId)}/validate`, { method: "POST", body: payload() });
    if (sequence !== validateSequence || current !== view) return;
    const errors = data && Array.isArray(data.errors) ? data.errors : [];
    view.setComputed(data && data.computed);
    const unplaced = view.setErrors(errors);
    if (!summary.hidden) renderSummary(errors, unplaced);
  } catch (error) {
    if (sequence === validateSequence && error instanceof ProblemError && error.status === 422) {
      view.setErrors(error.errors);
    }
    // Live validation is advisory: a failed check must not block typing; submit reports real failures.
  }
}

function renderSummary(errors, unplaced) {
  if (errors.length === 0) {
    summary.hidden = true;
    summary.replaceChildren();
    return;
  }
  const heading = document.createElement("h2");
  heading.textContent = t("summary.heading", { count: errors.length });
  const list = document.createElement("ul");
  const unplacedSet = new Set(unplaced);
  for (const error of errors) {
    const item = document.createElement("li");
    const field = view.fieldAt(String(error.field));
    const label = field ? (field.props.title || field.path) : String(error.field || t("summary.form"));
    const message = `${label}: ${error.message || error.code}`;
    if (field && !unplacedSet.has(error) && field.focusTarget && field.focusTarget.id) {
      const link = document.createElement("a");
      link.href = `#${field.focusTarget.id}`;
      link.textContent = message;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        field.focusTarget.focus();
      });
      item.append(link);
    } else {
      item.textContent = message;
    }
    list.append(item);
  }
  summary.replaceChildren(heading, list);
  summary.hidden = false;
}

function showProblem(message) {
  const heading = document.createElement("h2");
  heading.textContent = t("submit.notSent");
  const p = document.createElement("p");
  p.textContent = message;
  summary.replaceChildren(heading, p);
  summary.hidden = false;
  summary.focus();
}

async function onSubmit(event) {
  event.preventDefault();
  if (submitting) return;
  const arriving = view.uploading();
  if (arriving) {
    showProblem(t("submit.stillUploading", { count: arriving }));
    return;
  }
  clearTimeout(validateTimer);
  validateSequence++;
  submitting = true;
  view.setDisabled(true);
  view.element.setAttribute("aria-busy", "true");
  let answer = null;
  let failure = null;
  try {
    answer = (drafts && await drafts.submit()) || await submitValues();
  } catch (error) {
    failure = error;
  }
  submitting = false;
  // Controls are enabled again before errors are shown, so focus can move to the first invalid field.
  view.setDisabled(false);
  view.element.removeAttribute("aria-busy");
  if (answer) {
    showReceipt(answer.data);
  } else if (failure instanceof ProblemError && failure.status === 422 && failure.errors.length) {
    const unplaced = view.setErrors(failure.errors, { showAll: true });
    renderSummary(failure.errors, unplaced);
    if (!view.focusFirstError()) summary.focus();
  } else if (failure instanceof ProblemError && failure.status === 409) {
    showProblem(t("submit.changed"));
  } else if (failure instanceof ProblemError && failure.status === 429) {
    const wait = failure.headers && failure.headers.get("Retry-After");
    showProblem(wait && /^\d+$/.test(wait) ? t("submit.tooManyFor", { count: Number(wait) }) : t("submit.tooMany"));
  } else {
    showProblem(describe(failure));
  }
}

/** Submits the values map itself (no draft was made, or drafts are not available). */
function submitValues() {
  const serialized = JSON.stringify(payload());
  // Retrying the very same body (after a lost answer) reuses the key, so the server replays, not duplicates.
  if (lastSubmission.body !== serialized) lastSubmission = { body: serialized, key: newIdempotencyKey() };
  return request(`/v1/forms/${segment(formId)}/submissions`, {
    method: "POST", body: serialized, headers: { "Idempotency-Key": lastSubmission.key },
  });
}

function flatten(value, prefix, out) {
  if (isStoredFile(value)) {
    out.push([formatPath(prefix), describeStoredFile(value)]);
  } else if (Array.isArray(value) && value.every(isStoredFile) && value.length) {
    out.push([formatPath(prefix), value.map(describeStoredFile).join(", ")]);
  } else if (Array.isArray(value) && value.some((v) => v && typeof v === "object")) {
    value.forEach((v, i) => flatten(v, [...prefix, i], out));
  } else if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, [...prefix, k], out);
  } else {
    out.push([formatPath(prefix), Array.isArray(value) ? value.join(", ") : String(value)]);
  }
  return out;
}

function showReceipt(data) {
  const submission = data || {};
  const title = document.createElement("h2");
  title.id = "receipt-title";
  title.textContent = t("receipt.title");
  const facts = document.createElement("dl");
  facts.className = "fh-facts";
  const received = submission.receivedAt ? new Date(submission.receivedAt) : null;
  const rows = [
    [t("receipt.reference"), submission.id || "—", "fh-receipt-id"],
    [t("receipt.received"), received && !Number.isNaN(received.getTime())
      ? formatDateTime(received, { dateStyle: "medium", timeStyle: "medium" }) : submission.receivedAt || "—"],
    [t("receipt.formVersion"), submission.formVersion ?? formVersion ?? "—"],
  ];
  for (const [name, value, className] of rows) {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.textContent = String(value);
    if (className) dd.className = className;
    facts.append(dt, dd);
  }
  const details = document.createElement("details");
  const label = document.createElement("summary");
  label.textContent = t("receipt.sent");
  const answers = document.createElement("dl");
  answers.className = "fh-facts";
  for (const [path, value] of flatten(submission.values || {}, [], [])) {
    const dt = document.createElement("dt");
    dt.textContent = path;
    const dd = document.createElement("dd");
    dd.textContent = value;
    answers.append(dt, dd);
  }
  details.append(label, answers);
  const again = document.createElement("button");
  again.type = "button";
  again.className = "fh-button fh-secondary";
  again.textContent = t("receipt.again");
  again.addEventListener("click", () => {
    if (drafts) drafts = newKeeper();
    mount();
    const first = view.element.querySelector("input, select, textarea");
    if (first) first.focus();
  });
  receipt.replaceChildren(title, facts, details, again);
  receipt.hidden = false;
  summary.hidden = true;
  root.hidden = true;
  root.replaceChildren();
  view = null;
  receipt.focus();
}

// Hiding or leaving the page saves at once, in a request that outlives it.
const leave = () => drafts && drafts.save({ keepalive: true }).catch(() => {});
document.addEventListener("visibilitychange", () => document.visibilityState === "hidden" && leave());
window.addEventListener("pagehide", leave);

load();
