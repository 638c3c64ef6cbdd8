// Drafts for the form page: the answers are saved on the server as the person types (the first save
// creates the draft, later ones send only what changed as a JSON merge patch), one request at a time
// and each naming the revision it builds on; a link resumes the draft on another device; submitting
// goes through the draft. The draft's id and token are kept in localStorage, per form, so a reload on
// the same device resumes it.

import { request, ProblemError, NetworkError, versionFromETag, segment } from "./api.js";
import { t } from "./i18n.js";

const SAVE_DELAY_MS = 800;
const RETRY_DELAY_MS = 5000;
/** A third device saving between our GET and PATCH again is possible; a fourth time is not worth chasing. */
const CONFLICT_ATTEMPTS = 3;
const STORAGE_PREFIX = "formhouse.draft.";
const MERGE_PATCH = "application/merge-patch+json";

/** Whether `error` is the problem type `name` (`draft-submitted`, …) of docs/api.md. */
function problem(error, name) {
  return error instanceof ProblemError && error.type.endsWith(`/${name}`);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// Keys are the form's ids (`__proto__` among them): defined as own properties, never assigned.
function put(node, key, value) {
  Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
}

function equal(a, b) {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return false;
}

/**
 * The RFC 7396 merge patch that turns `before` into `after`: members added or changed, `null` for
 * those removed, objects patched member by member, arrays and other values whole.
 */
export function mergePatchBetween(before, after) {
  const patch = {};
  for (const [key, value] of Object.entries(after)) {
    const had = Object.hasOwn(before, key) ? before[key] : undefined;
    if (isObject(value) && isObject(had)) {
      const inner = mergePatchBetween(had, value);
      if (Object.keys(inner).length) put(patch, key, inner);
    } else if (!equal(had, value)) put(patch, key, value);
  }
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) put(patch, key, null);
  return patch;
}

/** `patch` applied to `target` as RFC 7396 says; neither is changed. */
export function applyMergePatch(target, patch) {
  if (!isObject(patch)) return structuredClone(patch);
  const out = isObject(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else put(out, key, applyMergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value));
  }
  return out;
}

/** The draft this device keeps for `formId`: `{ draftId, token }`, or null. */
export function storedDraft(formId) {
  try {
    const kept = JSON.parse(localStorage.getItem(STORAGE_PREFIX + formId) || "null");
    return kept && typeof kept.draftId === "string" && typeof kept.token === "string" ? kept : null;
  } catch {
    return null;
  }
}

function storeDraft(formId, draft) {
  try {
    if (draft) localStorage.setItem(STORAGE_PREFIX + formId, JSON.stringify(draft));
    else localStorage.removeItem(STORAGE_PREFIX + formId);
  } catch {
    // Storage full or refused (private mode): the draft is still saved; only a reload will not find it.
  }
}

/**
 * The draft a resume link names (`/f/{id}?draft=<id>#token=<token>`), or null. The token travels in
 * the fragment, which no server sees; it is taken out of the address bar here (kept in localStorage by
 * the keeper once the draft opens), so it is not left on screen or in the history.
 */
export function draftFromLink(formId) {
  const params = new URLSearchParams(location.search);
  const draftId = params.get("draft");
  if (!draftId) return null;
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  params.delete("draft");
  const query = params.toString();
  history.replaceState(history.state, "", `${location.pathname}${query ? `?${query}` : ""}`);
  if (token) return { draftId, token };
  // A link without its token still opens on the device that made the draft.
  const kept = storedDraft(formId);
  return { draftId, token: kept && kept.draftId === draftId ? kept.token : "" };
}

/**
 * Keeps one form's draft in step with what the person typed, and shows where it stands in `bar`: a
 * status ("Saving…", "Saved", "Offline, will retry"), announced politely, and the link that resumes
 * the draft on another device with a Copy button.
 */
export class DraftKeeper {
  /**
   * formId: the form; version(): the version the page shows, which a new draft keeps to the end;
   * read(): the values to save now; show(values): draws values another device saved (after a 412)
   * with the person's own unsaved changes on top; bar: the element to fill.
   */
  constructor({ formId, version, read, show, bar }) {
    Object.assign(this, { formId, version, read, show, bar });
    /** `{ id, token }` once the draft exists. */
    this.draft = null;
    this.revision = null;
    /** The values as last saved: what the next merge patch is computed from. */
    this.base = null;
    /** A change waits to be saved (before the draft exists, the first change creates it). */
    this.dirty = false;
    /** Creating drafts failed (no such route, throttled, refused): the page submits as before. */
    this.unavailable = false;
    /** The draft was submitted (here or on another device): nothing more to save. */
    this.closed = false;
    this.timer = null;
    this.chain = Promise.resolve();
    this.buildBar();
  }

  buildBar() {
    this.status = document.createElement("p");
    this.status.className = "fh-draft-status";
    this.status.id = "draft-status";
    this.status.setAttribute("role", "status");
    this.status.setAttribute("aria-live", "polite");
    this.link = document.createElement("a");
    this.link.id = "draft-link";
    this.link.textContent = t("draft.resume");
    this.copy = document.createElement("button");
    this.copy.type = "button";
    this.copy.id = "draft-copy";
    this.copy.className = "fh-button fh-secondary fh-small";
    this.copy.textContent = t("draft.copy");
    this.copy.addEventListener("click", () => this.copyLink());
    const note = document.createElement("span");
    note.className = "fh-draft-note";
    note.textContent = t("draft.linkWarning");
    // Shown only where the clipboard is refused, selected for the person to copy.
    this.address = document.createElement("code");
    this.address.className = "fh-draft-url";
    this.address.hidden = true;
    this.resume = document.createElement("p");
    this.resume.className = "fh-draft-resume";
    this.resume.hidden = true;
    this.resume.append(this.link, " ", this.copy, " ", note, this.address);
    this.bar.replaceChildren(this.status, this.resume);
    this.bar.hidden = true;
  }

  say(text, kind = "info") {
    this.status.textContent = text;
    this.status.dataset.kind = kind;
    this.bar.hidden = this.unavailable || (!text && !this.draft);
  }

  /** The address that opens this draft elsewhere; the token in the fragment, never sent to a server. */
  resumeURL() {
    return `${location.origin}/f/${segment(this.formId)}?draft=${encodeURIComponent(this.draft.id)}#token=${encodeURIComponent(this.draft.token)}`;
  }

  async copyLink() {
    try {
      await navigator.clipboard.writeText(this.resumeURL());
      this.copy.textContent = t("draft.copied");
    } catch {
      this.address.textContent = this.resumeURL();
      this.address.hidden = false;
      const range = document.createRange();
      range.selectNodeContents(this.address);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      this.copy.textContent = t("draft.pressCopy");
    }
  }

  adopt(id, token, data, headers) {
    this.draft = { id, token };
    this.took(data, headers);
    storeDraft(this.formId, { draftId: id, token });
    this.link.href = this.resumeURL();
    this.resume.hidden = false;
    this.bar.hidden = false;
  }

  took(data, headers) {
    this.revision = Number.isInteger(data && data.revision) ? data.revision : versionFromETag(headers);
  }

  /**
   * Opens the draft `draftId` with `token`: resolves to it (`{ values, formVersion, … }`), rejects with
   * a ProblemError 404 when it expired, was deleted or the token is wrong (then this device forgets it).
   */
  async open(draftId, token) {
    storeDraft(this.formId, { draftId, token });
    try {
      const { data, headers } = await request(`/v1/drafts/${segment(draftId)}`, { token });
      this.adopt(draftId, token, data, headers);
      this.closed = Boolean(data && data.submissionId);
      return data;
    } catch (error) {
      if (error instanceof ProblemError && error.status === 404) storeDraft(this.formId, null);
      throw error;
    }
  }

  /** Takes the values the page shows now as the saved ones (after drawing an opened draft). */
  start(values) {
    this.base = structuredClone(values);
    this.say(this.closed ? t("draft.alreadySent") : t("draft.saved"), this.closed ? "error" : "ok");
  }

  /** Called on every change: saves about 800 ms after the last one. */
  changed() {
    if (this.unavailable || this.closed) return;
    this.dirty = true;
    // Said at once, so "Saved" never stands over a change that is not.
    if (this.draft) this.say(t("draft.saving"));
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save().catch(() => {}), SAVE_DELAY_MS);
  }

  /**
   * Saves what is not saved yet, after any save already on its way (so revisions go in order).
   * keepalive: the request outlives the page (it is being hidden or closed). Rejects with the
   * NetworkError or ProblemError that stopped it.
   */
  save({ keepalive = false } = {}) {
    clearTimeout(this.timer);
    this.timer = null;
    const run = this.chain.then(() => this.send(keepalive)).catch((error) => {
      if (error instanceof NetworkError) this.retryLater(t("draft.offline"));
      else if (error instanceof ProblemError && this.timer === null) this.say(t("draft.notSaved", { reason: error.detail || error.title }), "error");
      throw error;
    });
    this.chain = run.catch(() => {});
    return run;
  }

  async send(keepalive) {
    if (this.unavailable || this.closed || !this.dirty) return;
    const values = this.read();
    if (!this.draft) {
      await this.create(values, keepalive);
      return;
    }
    const patch = mergePatchBetween(this.base, values);
    if (Object.keys(patch).length === 0) {
      this.dirty = false;
      this.say(t("draft.saved"), "ok");
      return;
    }
    this.say(t("draft.saving"));
    try {
      const { data, headers } = await this.patch(patch, this.revision, keepalive);
      this.took(data, headers);
      this.saved(values);
    } catch (error) {
      await this.failed(error, values, patch);
    }
  }

  async create(values, keepalive) {
    this.say(t("draft.saving"));
    let answer;
    try {
      const body = Number.isInteger(this.version()) ? { values, formVersion: this.version() } : { values };
      answer = await request(`/v1/forms/${segment(this.formId)}/drafts`, { method: "POST", body, keepalive });
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      this.unavailable = true;
      this.say("");
      return;
    }
    this.adopt(answer.data.id, answer.data.token, answer.data, answer.headers);
    this.saved(values);
  }

  patch(patch, revision, keepalive = false) {
    const headers = { "Content-Type": MERGE_PATCH };
    if (revision !== null) headers["If-Match"] = `"${revision}"`;
    return request(`/v1/drafts/${segment(this.draft.id)}`, {
      method: "PATCH", body: patch, token: this.draft.token, headers, keepalive,
    });
  }

  saved(values) {
    this.base = values;
    // Changes made while this save was on its way are still unsaved: the timer they set will send them.
    this.dirty = this.timer !== null;
    if (!this.dirty) this.say(t("draft.saved"), "ok");
  }

  /** Says `message` and saves again in a few seconds (a change meanwhile saves sooner). */
  retryLater(message) {
    this.say(message, "error");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save().catch(() => {}), RETRY_DELAY_MS);
  }

  async failed(error, values, patch) {
    if (!(error instanceof ProblemError)) throw error;
    if (error.status === 412) {
      await this.merge(values, patch);
    } else if (problem(error, "draft-submitted")) {
      this.closed = true;
      this.say(t("draft.sentElsewhere"), "error");
    } else if (error.status === 404 || problem(error, "draft-revision-limit")) {
      // Expired, deleted, or at its most revisions: what the page shows becomes a new draft.
      this.forget();
      this.dirty = true;
      await this.send(false);
    } else if (error.status === 409) {
      // Another save of this draft was being stored at that very moment.
      this.retryLater(t("draft.notSavedYet"));
      throw error;
    } else throw error;
  }

  /**
   * Another device saved first (412): reads the draft as it is now, puts this person's unsaved changes
   * on top, and saves them with the new revision; then shows the result, with anything typed meanwhile.
   */
  async merge(sent, patch) {
    for (let attempt = 1; attempt <= CONFLICT_ATTEMPTS; attempt++) {
      const current = await request(`/v1/drafts/${segment(this.draft.id)}`, { token: this.draft.token });
      try {
        const { data, headers } = await this.patch(patch, Number.isInteger(current.data.revision) ? current.data.revision : versionFromETag(current.headers));
        this.took(data, headers);
        const merged = data && isObject(data.values) ? data.values : applyMergePatch(current.data.values, patch);
        const typedSince = mergePatchBetween(sent, this.read());
        this.show(applyMergePatch(merged, typedSince));
        this.base = merged;
        this.dirty = Object.keys(typedSince).length > 0 || this.timer !== null;
        if (this.dirty && this.timer === null) this.timer = setTimeout(() => this.save().catch(() => {}), SAVE_DELAY_MS);
        this.say(t("draft.merged"), "ok");
        return;
      } catch (error) {
        if (!(error instanceof ProblemError && error.status === 412) || attempt === CONFLICT_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Submits through the draft once what is typed is saved: resolves to the submission's 201 answer
   * (and forgets the draft), or to null when there is no draft to submit (none was made, or it
   * expired) and the page should submit as before. Rejects with the ProblemError (422 keeps the draft).
   */
  async submit() {
    if (this.unavailable) return null;
    await this.save();
    if (this.unavailable || !this.draft) return null;
    try {
      // No Idempotency-Key: submitting a draft again answers its submission again.
      const answer = await request(`/v1/drafts/${segment(this.draft.id)}/submit`, { method: "POST", token: this.draft.token });
      this.forget();
      this.closed = true;
      return answer;
    } catch (error) {
      if (error instanceof ProblemError && error.status === 404) {
        this.forget();
        return null;
      }
      throw error;
    }
  }

  /** Forgets the draft on this device (it stays on the server until it expires). */
  forget() {
    storeDraft(this.formId, null);
    this.draft = null;
    this.revision = null;
    this.base = null;
    this.resume.hidden = true;
    this.say("");
  }
}
