// Renders a Formhouse form definition (docs/engine.md) into live DOM: every component type, sections,
// groups with repeats, visibleWhen and enabledWhen evaluated on every change, updates and option
// defaults, style colors, and errors by key path.
// It holds the values the user entered; it never talks to the server (the page that uses it does,
// uploads included: a `file` input hands each picked file to the page's `upload` option).

import { accepts, describeAccept, formatSize } from "./files.js";
import { t, lookup } from "./i18n.js";

const STYLE_KEYS = [
  "accent", "background", "componentBackground", "componentTitle", "componentDescription",
  "componentInputText", "componentInputBackground", "componentRequired", "componentCorrect",
];

const US_STATES = [
  ["AL", "Alabama"], ["AK", "Alaska"], ["AZ", "Arizona"], ["AR", "Arkansas"], ["CA", "California"],
  ["CO", "Colorado"], ["CT", "Connecticut"], ["DE", "Delaware"], ["DC", "District of Columbia"],
  ["FL", "Florida"], ["GA", "Georgia"], ["HI", "Hawaii"], ["ID", "Idaho"], ["IL", "Illinois"],
  ["IN", "Indiana"], ["IA", "Iowa"], ["KS", "Kansas"], ["KY", "Kentucky"], ["LA", "Louisiana"],
  ["ME", "Maine"], ["MD", "Maryland"], ["MA", "Massachusetts"], ["MI", "Michigan"], ["MN", "Minnesota"],
  ["MS", "Mississippi"], ["MO", "Missouri"], ["MT", "Montana"], ["NE", "Nebraska"], ["NV", "Nevada"],
  ["NH", "New Hampshire"], ["NJ", "New Jersey"], ["NM", "New Mexico"], ["NY", "New York"],
  ["NC", "North Carolina"], ["ND", "North Dakota"], ["OH", "Ohio"], ["OK", "Oklahoma"], ["OR", "Oregon"],
  ["PA", "Pennsylvania"], ["RI", "Rhode Island"], ["SC", "South Carolina"], ["SD", "South Dakota"],
  ["TN", "Tennessee"], ["TX", "Texas"], ["UT", "Utah"], ["VT", "Vermont"], ["VA", "Virginia"],
  ["WA", "Washington"], ["WV", "West Virginia"], ["WI", "Wisconsin"], ["WY", "Wyoming"],
];

/** Lower-cased state code or name → code, as the engine normalizes a `usstate` value. */
const US_STATE_CODES = new Map(US_STATES.flatMap(([code, name]) => [[code.toLowerCase(), code], [name.toLowerCase(), code]]));

/** Text-like inputs: the DOM attributes each one gets. */
const TEXT_INPUTS = {
  text: { tag: "input", type: "text" },
  multiline: { tag: "textarea" },
  email: { tag: "input", type: "email", inputmode: "email", autocomplete: "email" },
  numerical: { tag: "input", type: "text", inputmode: "numeric" },
  phonenumber: { tag: "input", type: "tel", inputmode: "tel", autocomplete: "tel" },
  usphone: { tag: "input", type: "tel", inputmode: "tel", autocomplete: "tel-national" },
  password: { tag: "input", type: "password", autocomplete: "new-password" },
  integer: { tag: "input", type: "text", inputmode: "numeric" },
  decimal: { tag: "input", type: "text", inputmode: "decimal" },
  date: { tag: "input", type: "date" },
  usstate: { tag: "input", type: "text", autocomplete: "address-level1" },
};

let documentCounter = 0;

/** A `file` input's maxSize when the definition leaves it out, as the engine normalizes it. */
const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;

/** The longer side of an image preview, in CSS pixels. */
const PREVIEW_SIZE = 160;

/** As the server (DefinitionDecoder.maximumAddedComponents): repeats, each written `max(min, 1)` times,
 * may add at most this many components; the server refuses a definition past it (`tooLarge`). */
const MAX_ADDED_COMPONENTS = 20_000;

/** A repeat's bounds as the engine reads them: "max" is 100 when absent. */
function repeatBounds(repeat) {
  const min = Math.max(0, Number.isInteger(repeat.min) ? repeat.min : 0);
  const max = Number.isInteger(repeat.max) ? repeat.max : 100;
  return { min, max };
}

/** The title of the first repeating group whose "min" is above its "max" (the server refuses the
 * definition, badBounds), or null. A "min" of 150 without "max" is one: "max" is then 100. */
function inverseRepeat(components, defaultLanguage) {
  for (const component of Array.isArray(components) ? components : []) {
    const { type, props } = componentParts(component);
    if (type !== "section" && type !== "group") continue;
    if (type === "group" && props.repeat && typeof props.repeat === "object") {
      const { min, max } = repeatBounds(props.repeat);
      if (min > max) return text(props.title, defaultLanguage) || text(props.id, defaultLanguage) || "a repeating group";
    }
    const inner = inverseRepeat(props.components, defaultLanguage);
    if (inner !== null) return inner;
  }
  return null;
}

/**
 * How many components the repeats of `components` add when each is written `max(min, 1)` times, as the
 * server counts them (nested minimums multiply, siblings add up). Counted without drawing anything, so
 * an unsaved definition in the console's preview cannot make the page build millions of fields.
 */
function addedByRepeats(components) {
  const size = (list) => {
    let expanded = 0;
    let plain = 0;
    for (const component of Array.isArray(list) ? list : []) {
      const { type, props } = componentParts(component);
      if (type === "section" || type === "group") {
        const inner = size(props.components);
        plain += inner.plain;
        const copies = type === "group" && props.repeat && typeof props.repeat === "object"
          ? Math.max(repeatBounds(props.repeat).min, 1) : 1;
        expanded += copies > 1 ? Math.max(inner.expanded, 1) * copies : inner.expanded;
      } else {
        expanded++;
        plain++;
      }
    }
    return { expanded, plain };
  };
  const { expanded, plain } = size(components);
  return expanded - plain;
}

/**
 * Renders `definition` into `container` (replacing its children) and returns the live FormView.
 * options: onChange(view, path) after every value change, onBlur(view, path) when a field loses focus,
 * headingLevel (1 by default) for the form title, and upload(file, path, { onProgress(sent, total),
 * signal }) → Promise of the upload's 201 body (`{ id, ... }`), rejecting with an Error whose message
 * is shown to the person (an AbortError when cancelled). Without `upload` (the console's preview),
 * picked files are checked and shown but not sent. values: the answers to start from (a resumed
 * draft), a file input's upload ids included.
 */
export function renderForm(container, definition, options = {}) {
  const view = new FormView(definition, options);
  container.replaceChildren(view.element);
  view.refreshVisibility();
  return view;
}

/** Sets the form's style colors as CSS custom properties (`--fh-component-title`, ...) on `element`. */
export function applyStyle(element, style) {
  if (!style || typeof style !== "object") return;
  for (const key of STYLE_KEYS) {
    const css = cssColor(style[key]);
    if (css) element.style.setProperty(`--fh-${kebab(key)}`, css);
  }
  const accent = parseColor(style.accent);
  if (accent) element.style.setProperty("--fh-accent-contrast", contrastColor(accent));
}

/** `#RRGGBB` or `#RRGGBBAA` to a CSS `rgba(...)`; null when the text is not such a color. */
export function cssColor(value) {
  const c = parseColor(value);
  return c ? `rgba(${c.r}, ${c.g}, ${c.b}, ${Math.round((c.a / 255) * 1000) / 1000})` : null;
}

function parseColor(value) {
  if (typeof value !== "string") return null;
  const m = /^#([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})([0-9a-fA-F]{2})?$/.exec(value.trim());
  if (!m) return null;
  return { r: parseInt(m[1], 16), g: parseInt(m[2], 16), b: parseInt(m[3], 16), a: m[4] ? parseInt(m[4], 16) : 255 };
}

function contrastColor({ r, g, b }) {
  const lum = (v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lum(r) + 0.7152 * lum(g) + 0.0722 * lum(b);
  return l > 0.4 ? "#111111" : "#ffffff";
}

function kebab(key) {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** `["addresses", 1, "postcode"]` → `addresses[1].postcode`. */
export function formatPath(segments) {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else out += out.length ? `.${s}` : s;
  }
  return out;
}

// Ids are the user's (a definition may name an input `constructor` or a group `__proto__`), so only
// own properties are read, and values are defined, not assigned: `node["__proto__"] = v` would set
// the prototype, polluting every object of the page.
function getAt(root, segments) {
  let node = root;
  for (const s of segments) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, s)) return undefined;
    node = node[s];
  }
  return node;
}

function put(node, key, value) {
  Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
}

function setAt(root, segments, value) {
  let node = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const s = segments[i];
    if (!Object.hasOwn(node, s) || node[s] === null || typeof node[s] !== "object") {
      if (value === undefined) return;
      put(node, s, typeof segments[i + 1] === "number" ? [] : {});
    }
    node = node[s];
  }
  const last = segments[segments.length - 1];
  if (value === undefined) {
    if (Object.hasOwn(node, last)) delete node[last];
  } else put(node, last, value);
}

/** Text as the engine's conditions read a number: digits with an optional "-", fraction and exponent. */
function engineNumber(text) {
  return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? Number(text) : NaN;
}

function isEmpty(value) {
  return value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
}

/** Text in Unicode's composed form (NFC), inside arrays and objects too: the engine compares strings
 * as Swift does, by canonical equivalence, so "café" with é as one character or as e + U+0301 is the same. */
function composed(value) {
  if (typeof value === "string") return value.normalize("NFC");
  if (Array.isArray(value)) return value.map(composed);
  if (value && typeof value === "object") {
    const out = {};
    for (const [key, inner] of Object.entries(value)) put(out, key.normalize("NFC"), composed(inner));
    return out;
  }
  return value;
}

/** The engine's equality for conditions: absent equals "", a number equals its text, a boolean "true"/"false". */
function sameValue(actual, expected) {
  const value = actual === undefined ? null : actual;
  if (JSON.stringify(composed(value)) === JSON.stringify(composed(expected))) return true;
  if (value === null && expected === "") return true;
  if (value === "" && expected === null) return true;
  if (typeof value === "number" && typeof expected === "string") return engineNumber(expected) === value;
  if (typeof value === "string" && typeof expected === "number") return engineNumber(value) === expected;
  if (typeof value === "boolean" && typeof expected === "string") return expected === String(value);
  return false;
}

/** A value as the engine stores it, which is what its conditions read: a state as its code, a decimal as its number. */
function normalized(type, value) {
  if (typeof value !== "string") return value;
  if (type === "usstate") return US_STATE_CODES.get(value.toLowerCase()) ?? value;
  if (type === "decimal" && value.length <= 64 && /^[+-]?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

/** As the engine: a multiple select's choices match a single value when they include it, and an
 * array when they are the same choice in any order. */
function matches(actual, expected) {
  if (Array.isArray(actual) && !Array.isArray(expected)) return actual.some((v) => sameValue(v, expected));
  if (Array.isArray(actual) && Array.isArray(expected)) {
    return actual.length === expected.length
      && expected.every((e) => actual.some((a) => sameValue(a, e)))
      && actual.every((a) => expected.some((e) => sameValue(a, e)));
  }
  return sameValue(actual, expected);
}

/** Splits a component `{ "<type>": { ...props } }` into its type and properties. */
export function componentParts(component) {
  if (!component || typeof component !== "object" || Array.isArray(component)) return { type: null, props: {} };
  const keys = Object.keys(component);
  if (keys.length !== 1) return { type: null, props: {} };
  const props = component[keys[0]];
  return { type: keys[0], props: props && typeof props === "object" && !Array.isArray(props) ? props : {} };
}

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function present(...nodes) {
  return nodes.filter(Boolean);
}

/**
 * A text a person reads: a string, or a map of language tags to strings (a definition fetched with
 * `?lang=*`, or being edited in the console) read in the browser's language.
 */
function text(value, defaultLanguage) {
  if (typeof value === "string" || typeof value === "number") return String(value);
  return value && typeof value === "object" && !Array.isArray(value) ? inBrowserLanguage(value, defaultLanguage) : "";
}

/**
 * RFC 4647 lookup of the browser's languages among a map's tags (`es-MX` finds `es`), as the server
 * does for `Accept-Language`; without a match, the text in the form's `defaultLanguage`, which every
 * map holds (the server refuses a map without it).
 */
function inBrowserLanguage(map, defaultLanguage) {
  const tags = Object.keys(map).filter((tag) => typeof map[tag] === "string");
  const preferred = (typeof navigator !== "undefined" && (navigator.languages || [navigator.language])) || [];
  const tag = lookup(preferred, tags);
  if (tag) return map[tag];
  const fallback = tags.find((t) => t.toLowerCase() === defaultLanguage.toLowerCase());
  return fallback ? map[fallback] : tags.length ? map[tags[0]] : "";
}

/** Whether any of `components`, at any depth, has `updates`. */
function anyHasUpdates(components) {
  return components.some((component) => {
    const { props } = componentParts(component);
    return Array.isArray(props.updates) || (Array.isArray(props.components) && anyHasUpdates(props.components));
  });
}

/** One rendered form: its DOM, the values entered so far, and the fields by key path. */
export class FormView {
  constructor(definition, options = {}) {
    this.definition = definition && typeof definition === "object" ? definition : {};
    /** A map's text when none of the browser's languages is among its tags; each view has its own. */
    this.defaultLanguage = typeof this.definition.defaultLanguage === "string" ? this.definition.defaultLanguage : "en";
    this.options = options;
    this.prefix = `fh${++documentCounter}`;
    this.counter = 0;
    this.state = {};
    this.fields = new Map();
    this.conditionals = [];
    this.touched = new Set();
    this.lastErrors = [];
    this.rejected = new Set();
    this.showAllErrors = false;
    /** Whether any input has `updates`: a form without them does not look for them at every keystroke. */
    this.hasUpdates = anyHasUpdates(Array.isArray(this.definition.components) ? this.definition.components : []);
    /** The files of each `file` input by key path, kept apart from the DOM so a repeat's re-render keeps them. */
    this.files = new Map();

    /** Set while values given from outside are drawn: file inputs then take the files they name. */
    this.restoring = options.values !== undefined;
    /** Set while the form is first drawn from no values: its inputs start with their defaults. */
    this.firstDraw = !this.restoring;
    /** The repeat items made during the current drawing, whose inputs start with their defaults too. */
    this.freshItems = new WeakSet();
    if (this.restoring) this.state = structuredClone(options.values);

    this.element = el("form", { class: "fh-form", novalidate: true, "data-form-id": this.text(this.definition.id) });
    // Never a browser form post: the page that owns the view decides what submitting means.
    this.element.addEventListener("submit", (event) => event.preventDefault());
    applyStyle(this.element, this.definition.style);
    const level = Math.min(Math.max(Number(options.headingLevel) || 1, 1), 5);
    this.level = level;
    if (this.definition.title) {
      this.element.append(el(`h${level}`, { class: "fh-title", text: this.text(this.definition.title) }));
    }
    if (this.definition.description) {
      this.element.append(el("p", { class: "fh-form-description", text: this.text(this.definition.description) }));
    }
    this.body = el("div", { class: "fh-body" });
    this.element.append(this.body);
    const components = Array.isArray(this.definition.components) ? this.definition.components : [];
    const added = addedByRepeats(components);
    /** Why the form is not drawn (its repeats pass the server's limit), or null. */
    this.refusal = null;
    const inverse = inverseRepeat(components, this.defaultLanguage);
    if (inverse !== null) {
      this.refusal = t("renderer.inverseRepeat", { repeat: inverse });
      this.body.append(el("p", { class: "fh-refused", role: "alert", text: this.refusal }));
      return;
    }
    if (added > MAX_ADDED_COMPONENTS) {
      this.refusal = t("renderer.tooManyFields", { added, limit: MAX_ADDED_COMPONENTS });
      this.body.append(el("p", { class: "fh-refused", role: "alert", text: this.refusal }));
      return;
    }
    this.renderList(components, this.body, []);
    this.restoring = false;
    this.firstDraw = false;
    this.freshItems = new WeakSet();
  }

  /** A text of this form, read in the browser's language, else in the form's default language. */
  text(value) {
    return text(value, this.defaultLanguage);
  }

  /**
   * Draws `values` in place of the current ones (a draft another device saved meanwhile): the fields
   * are drawn again from them, keeping what was touched, the files on their way and the focus.
   */
  fill(values) {
    if (this.refusal) return;
    const focus = this.focusedControl();
    this.state = structuredClone(values);
    this.fields.clear();
    this.conditionals = [];
    this.restoring = true;
    this.body.replaceChildren();
    this.renderList(Array.isArray(this.definition.components) ? this.definition.components : [], this.body, []);
    this.restoring = false;
    this.freshItems = new WeakSet();
    this.refreshVisibility();
    this.reapplyErrors();
    if (focus) this.refocus(focus);
  }

  /** Which control has focus (its field's path and index) and where its caret is, or null. */
  focusedControl() {
    const active = document.activeElement;
    if (!active || !this.element.contains(active)) return null;
    for (const field of this.fields.values()) {
      const at = (field.controls || []).indexOf(active);
      if (at < 0) continue;
      let caret = null;
      try {
        caret = active.selectionStart === null ? null : [active.selectionStart, active.selectionEnd];
      } catch {
        caret = null;
      }
      return { path: field.path, at, caret };
    }
    return null;
  }

  refocus({ path, at, caret }) {
    const field = this.fields.get(path);
    const control = field && field.controls && field.controls[at];
    if (!control) return;
    control.focus();
    if (!caret) return;
    try {
      control.setSelectionRange(...caret);
    } catch {
      // Inputs such as e-mail have no caret to place.
    }
  }

  nextId() {
    return `${this.prefix}-${++this.counter}`;
  }

  /**
   * The values map to submit: `{ name: "Ana", address: {...}, addresses: [{...}] }`, without the
   * inputs that are hidden now: what someone typed before a field was hidden is not sent (the engine
   * would drop it, but the raw body is kept as received).
   */
  values() {
    const out = structuredClone(this.state);
    for (const field of this.fields.values()) {
      if (field.kind === "input" && !this.isShown(field)) setAt(out, field.segments, undefined);
    }
    return out;
  }

  renderList(components, parent, scope) {
    components.forEach((component, index) => {
      const node = this.renderComponent(component, scope, index);
      if (node) parent.append(node);
    });
  }

  renderComponent(component, scope, index) {
    const { type, props } = componentParts(component);
    // Registered before the children so conditions are evaluated parents first, in form order.
    const entry = props.visibleWhen ? { element: null, condition: props.visibleWhen, scope } : null;
    if (entry) this.conditionals.push(entry);
    let node;
    if (type === "section") node = this.renderSection(props, scope);
    else if (type === "group") node = this.renderGroup(props, scope, index);
    else if (type in TEXT_INPUTS || type === "select" || type === "switch" || type === "count" || type === "file") {
      node = this.renderInput(type, props, scope, index);
    } else {
      node = el("div", { class: "fh-unknown", role: "note" }, [
        el("span", { text: type ? t("renderer.unsupported", { type }) : t("renderer.noType") }),
      ]);
    }
    if (entry) entry.element = node;
    // enabledWhen: shown read-only while false (the engine then ignores the value); a computed
    // input (formula) is always read-only: the engine computes it.
    if (node && type !== "section" && type !== "group") {
      if (props.enabledWhen) this.conditionals.push({ element: node, condition: props.enabledWhen, scope, enabling: true });
      if (typeof props.formula === "string") {
        for (const control of node.querySelectorAll("input, select, textarea")) control.readOnly = true;
      }
    }
    return node;
  }

  renderSection(props, scope) {
    const heading = el(`h${Math.min(this.level + 1, 6)}`, { class: "fh-section-title", text: this.text(props.title) });
    const node = el("section", { class: "fh-section" }, [
      props.title ? heading : null,
      props.description ? el("p", { class: "fh-description", text: this.text(props.description) }) : null,
    ]);
    this.renderList(Array.isArray(props.components) ? props.components : [], node, scope);
    return node;
  }

  groupKey(props, index) {
    return typeof props.id === "string" && props.id ? props.id : `component${index}`;
  }

  renderGroup(props, scope, index) {
    const segments = [...scope, this.groupKey(props, index)];
    const path = formatPath(segments);
    const errorId = this.nextId();
    const descId = props.description ? this.nextId() : null;
    const legend = el("legend", { class: "fh-group-title", text: this.text(props.title) || this.text(props.id) });
    const node = el("fieldset", {
      class: "fh-group", "data-path": path, "aria-describedby": [descId, errorId].filter(Boolean).join(" "),
    }, [
      legend,
      descId ? el("p", { class: "fh-description", id: descId, text: this.text(props.description) }) : null,
    ]);
    const error = el("p", { class: "fh-error", id: errorId, "aria-live": "polite" });
    const field = { kind: "group", path, segments, wrapper: node, error, focusTarget: null, props };
    this.fields.set(path, field);
    const children = Array.isArray(props.components) ? props.components : [];
    if (props.repeat && typeof props.repeat === "object") {
      const { min, max } = repeatBounds(props.repeat);
      node.classList.add("fh-repeat");
      const list = el("div", { class: "fh-instances" });
      const add = el("button", { type: "button", class: "fh-button fh-add", text: t("repeat.add", { title: this.text(props.title) || t("repeat.entryLower") }) });
      const count = el("p", { class: "fh-repeat-count", "aria-live": "polite" });
      const repeat = { children, list, add, count, min, max, segments, title: this.text(props.title) || t("repeat.entry") };
      field.repeat = repeat;
      field.focusTarget = add;
      const existing = getAt(this.state, segments);
      const fresh = () => {
        const item = {};
        this.freshItems.add(item);
        return item;
      };
      if (!Array.isArray(existing)) setAt(this.state, segments, Array.from({ length: min }, fresh));
      else while (existing.length < min) existing.push(fresh());
      add.addEventListener("click", () => this.addInstance(field));
      node.append(list, el("div", { class: "fh-repeat-actions" }, [add, count]), error);
      this.renderInstances(field);
    } else {
      if (getAt(this.state, segments) === undefined) setAt(this.state, segments, {});
      this.renderList(children, node, segments);
      node.append(error);
    }
    return node;
  }

  renderInstances(field) {
    const { repeat, path } = field;
    this.unregisterBelow(`${path}[`);
    const items = getAt(this.state, repeat.segments);
    const nodes = items.map((_, i) => {
      const segs = [...repeat.segments, i];
      const heading = el("h3", { class: "fh-instance-title", text: `${repeat.title} ${i + 1}` });
      const remove = el("button", {
        type: "button", class: "fh-button fh-secondary fh-remove", text: t("repeat.remove"),
        "aria-label": t("repeat.removeLabel", { title: repeat.title, number: i + 1 }),
      });
      remove.disabled = items.length <= repeat.min;
      remove.addEventListener("click", () => this.removeInstance(field, i));
      const instance = el("div", { class: "fh-instance", "data-path": formatPath(segs) }, [
        el("div", { class: "fh-instance-head" }, [heading, remove]),
      ]);
      this.renderList(repeat.children, instance, segs);
      return instance;
    });
    const fragment = document.createDocumentFragment();
    for (const node of nodes) fragment.append(node);
    repeat.list.replaceChildren(fragment);
    repeat.add.disabled = items.length >= repeat.max;
    repeat.count.textContent = t("repeat.count", { count: items.length, min: repeat.min, max: repeat.max });
  }

  addInstance(field) {
    const items = getAt(this.state, field.repeat.segments);
    if (items.length >= field.repeat.max) return;
    const item = {};
    items.push(item);
    this.freshItems.add(item);
    this.touched.add(field.path);
    this.renderInstances(field);
    this.freshItems = new WeakSet();
    this.refreshVisibility();
    this.reapplyErrors();
    const last = field.repeat.list.lastElementChild;
    const first = last && last.querySelector("input, textarea, select");
    if (first) first.focus();
    this.changed(field.path);
  }

  removeInstance(field, index) {
    const items = getAt(this.state, field.repeat.segments);
    if (items.length <= field.repeat.min) return;
    items.splice(index, 1);
    this.touched = new Set([...this.touched].flatMap((p) => {
      const moved = shiftIndex(p, field.path, index);
      return moved === null ? [] : [moved];
    }));
    this.touched.add(field.path);
    this.moveFiles(field.path, index);
    this.lastErrors = this.lastErrors.filter((e) => !String(e.field).startsWith(`${field.path}[`));
    this.renderInstances(field);
    this.freshItems = new WeakSet();
    this.refreshVisibility();
    this.reapplyErrors();
    const buttons = field.repeat.list.querySelectorAll(":scope > .fh-instance > .fh-instance-head .fh-remove");
    const target = buttons[Math.min(index, buttons.length - 1)];
    (target && !target.disabled ? target : field.repeat.add).focus();
    this.changed(field.path);
  }

  unregisterBelow(prefix) {
    for (const key of [...this.fields.keys()]) if (key.startsWith(prefix)) this.fields.delete(key);
    this.conditionals = this.conditionals.filter((c) => !formatPath(c.scope).startsWith(prefix));
  }

  renderInput(type, props, scope, index) {
    const key = typeof props.id === "string" && props.id ? props.id : `component${index}`;
    const segments = [...scope, key];
    const path = formatPath(segments);
    const inputId = this.nextId();
    const descId = props.description ? this.nextId() : null;
    const errorId = this.nextId();
    const describedBy = [descId, errorId].filter(Boolean).join(" ");
    const title = this.text(props.title) || key;
    const required = props.required === true;
    const requiredMark = required ? el("span", { class: "fh-required", "aria-hidden": "true", title: t("field.required"), text: " *" }) : null;
    const description = descId ? el("p", { class: "fh-description", id: descId, text: this.text(props.description) }) : null;
    const error = el("p", { class: "fh-error", id: errorId, "aria-live": "polite" });
    const wrapper = el("div", { class: `fh-field fh-${type}`, "data-path": path, "data-type": type });
    const field = { kind: "input", type, path, segments, wrapper, error, props, controls: [] };

    if (type === "select" && props.multiple === true) {
      const legendId = this.nextId();
      const group = el("fieldset", {
        class: "fh-choices", "aria-describedby": describedBy, "aria-labelledby": legendId,
      }, [el("legend", { class: "fh-label", id: legendId }, [title, requiredMark])]);
      for (const option of Array.isArray(props.options) ? props.options : []) {
        const optionId = this.nextId();
        const box = el("input", { type: "checkbox", id: optionId, value: this.text(option && option.id) });
        box.addEventListener("change", () => this.readField(field));
        box.addEventListener("blur", () => this.blurred(field));
        field.controls.push(box);
        group.append(el("div", { class: "fh-choice" }, [box, el("label", { for: optionId, text: this.text(option && (option.title ?? option.id)) })]));
      }
      field.invalidTarget = group;
      field.focusTarget = field.controls[0] || group;
      wrapper.append(...present(group, description, error));
    } else if (type === "switch") {
      const box = el("input", {
        type: "checkbox", role: "switch", id: inputId, class: "fh-switch-input", "aria-describedby": describedBy,
        "aria-required": required ? "true" : null,
      });
      box.addEventListener("change", () => this.readField(field));
      box.addEventListener("blur", () => this.blurred(field));
      field.controls.push(box);
      field.focusTarget = box;
      field.invalidTarget = box;
      wrapper.append(el("div", { class: "fh-switch-row" }, [
        box, el("label", { for: inputId, class: "fh-label" }, [title, requiredMark]),
      ]), ...present(description, error));
    } else if (type === "file") {
      this.buildFileInput(field, { inputId, descId, errorId, title, required, requiredMark, description });
    } else if (type === "count") {
      const input = el("input", {
        id: inputId, type: "text", inputmode: "numeric", class: "fh-input fh-count-input",
        "aria-describedby": describedBy, "aria-required": required ? "true" : null,
      });
      const step = (delta) => {
        const current = Number.parseInt(input.value, 10);
        let next = (Number.isFinite(current) ? current : this.countStart(props) ?? 0) + delta;
        if (Number.isFinite(props.minValue)) next = Math.max(next, Math.ceil(props.minValue));
        if (Number.isFinite(props.maxValue)) next = Math.min(next, Math.floor(props.maxValue));
        input.value = String(next);
        this.readField(field);
      };
      const minus = el("button", { type: "button", class: "fh-button fh-secondary fh-step", "aria-label": t("count.decrease", { title }), text: "−" });
      const plus = el("button", { type: "button", class: "fh-button fh-secondary fh-step", "aria-label": t("count.increase", { title }), text: "+" });
      minus.addEventListener("click", () => step(-1));
      plus.addEventListener("click", () => step(1));
      input.addEventListener("input", () => this.readField(field));
      input.addEventListener("keydown", (event) => {
        if (event.key === "ArrowUp" || event.key === "ArrowDown") {
          event.preventDefault();
          step(event.key === "ArrowUp" ? 1 : -1);
        }
      });
      input.addEventListener("blur", () => this.blurred(field));
      field.controls.push(input);
      field.focusTarget = input;
      field.invalidTarget = input;
      wrapper.append(...present(el("label", { for: inputId, class: "fh-label" }, [title, requiredMark]), description,
        el("div", { class: "fh-stepper" }, [minus, input, plus]), error));
    } else {
      let control;
      if (type === "select") {
        control = el("select", {
          id: inputId, class: "fh-input", "aria-describedby": describedBy, "aria-required": required ? "true" : null,
        }, [el("option", { value: "", text: this.text(props.placeholder) || t("select.choose") })]);
        for (const option of Array.isArray(props.options) ? props.options : []) {
          control.append(el("option", { value: this.text(option && option.id), text: this.text(option && (option.title ?? option.id)) }));
        }
        control.addEventListener("change", () => this.readField(field));
      } else {
        const spec = TEXT_INPUTS[type];
        control = el(spec.tag, {
          id: inputId, class: "fh-input", type: spec.type, inputmode: spec.inputmode, autocomplete: spec.autocomplete,
          placeholder: this.text(props.placeholder) || null, "aria-describedby": describedBy,
          "aria-required": required ? "true" : null, rows: spec.tag === "textarea" ? 4 : null,
        });
        if (type === "date") {
          if (typeof props.minDate === "string") control.min = props.minDate;
          if (typeof props.maxDate === "string") control.max = props.maxDate;
        }
        if (type === "usstate") {
          const listId = this.nextId();
          control.setAttribute("list", listId);
          wrapper.append(el("datalist", { id: listId }, US_STATES.map(([code, name]) => el("option", { value: name, label: code }))));
        }
        control.addEventListener("input", () => this.readField(field));
        if (type === "date") control.addEventListener("change", () => this.readField(field));
      }
      control.addEventListener("blur", () => this.blurred(field));
      field.controls.push(control);
      field.focusTarget = control;
      field.invalidTarget = control;
      wrapper.prepend(...present(el("label", { for: inputId, class: "fh-label" }, [title, requiredMark]), description));
      wrapper.append(control, error);
    }
    this.fields.set(path, field);
    this.restoreField(field);
    return wrapper;
  }

  /** Where a count starts: at its minValue, else 0, but never past its maxValue (a pre-filled 0 under a
   * negative maxValue would be refused, while the engine takes a count left empty); null, left empty,
   * when no whole number is within the bounds (the server refuses such a definition). */
  countStart(props) {
    const low = Number.isFinite(props.minValue) ? Math.ceil(props.minValue) : null;
    const high = Number.isFinite(props.maxValue) ? Math.floor(props.maxValue) : Infinity;
    if (low !== null && low > high) return null;
    return Math.min(low ?? 0, high);
  }

  /** Draws a `file` input: its label, hint, the native picker and the list of picked files. */
  buildFileInput(field, { inputId, descId, errorId, title, required, requiredMark, description }) {
    const limits = fileLimits(field.props);
    const hintId = this.nextId();
    const input = el("input", {
      type: "file", id: inputId, class: "fh-input fh-file-input",
      accept: limits.accept.length ? limits.accept.join(",") : null, multiple: limits.maxFiles > 1,
      "aria-describedby": [descId, hintId, errorId].filter(Boolean).join(" "), "aria-required": required ? "true" : null,
    });
    const list = el("ul", { class: "fh-files", "aria-label": t("file.chosenFor", { title }) });
    input.addEventListener("change", () => this.pickFiles(field, [...input.files]));
    // Opening the system's file chooser takes focus from the window: that is not leaving the field.
    input.addEventListener("blur", () => document.hasFocus() && this.blurred(field));
    field.file = { input, list, limits, refusal: "" };
    field.controls.push(input);
    field.focusTarget = input;
    field.invalidTarget = input;
    field.wrapper.append(...present(el("label", { for: inputId, class: "fh-label" }, [title, requiredMark]), description,
      el("p", { class: "fh-file-hint", id: hintId, text: fileHint(limits) }), input, list, field.error));
  }

  /** The files picked for the input at `path`, in order (created empty). */
  fileEntries(path) {
    if (!this.files.has(path)) this.files.set(path, []);
    return this.files.get(path);
  }

  /** The field a picked file belongs to now (repeats move it), or undefined once its item is gone. */
  fileField(entry) {
    for (const [path, entries] of this.files) if (entries.includes(entry)) return this.fields.get(path);
    return undefined;
  }

  /** What is wrong with a file input's files in the browser: refused when picked, or failed to upload. */
  fileProblems(field) {
    const failed = this.fileEntries(field.path).filter((e) => e.state === "failed").map((e) => e.message);
    return [field.file.refusal, ...failed].filter(Boolean);
  }

  /** Checks the picked files against accept, maxSize and maxFiles, and starts an upload for each one that passes. */
  pickFiles(field, picked) {
    const { limits, input } = field.file;
    const entries = this.fileEntries(field.path);
    const refusals = [];
    for (const file of picked) {
      if (!accepts(limits.accept, file.type)) {
        refusals.push(t("file.wrongType", { name: file.name, accepted: describeAccept(limits.accept) }));
      } else if (file.size > limits.maxSize) {
        refusals.push(t("file.tooLarge", { name: file.name, size: formatSize(file.size), limit: formatSize(limits.maxSize) }));
      } else if (limits.maxFiles === 1) {
        // One file: choosing another replaces it.
        for (const old of [...entries]) this.dropEntry(old);
        this.addEntry(field, file);
      } else if (entries.length >= limits.maxFiles) {
        refusals.push(t("file.tooMany", { name: file.name, count: limits.maxFiles }));
      } else this.addEntry(field, file);
    }
    field.file.refusal = refusals.join(" ");
    input.value = "";
    this.fileValueChanged(field);
  }

  addEntry(field, file) {
    const entry = this.newEntry(file.name || "file", [formatSize(file.size), file.type].filter(Boolean).join(" · "));
    entry.file = file;
    if (/^image\//i.test(file.type)) drawPreview(file, entry.node, entry.name);
    this.fileEntries(field.path).push(entry);
    field.file.list.append(entry.node);
    this.startUpload(entry);
  }

  /**
   * Entries for the uploads a value drawn from outside names (a resumed draft), shown as uploaded: by
   * name and size when the value is a stored file object, else as "uploaded file". Entries of uploads
   * the value no longer names are dropped; files still on their way stay.
   */
  adoptStoredFiles(field) {
    const value = getAt(this.state, field.segments);
    const named = (Array.isArray(value) ? value : [value])
      .map((v) => (typeof v === "string" ? { id: v } : v))
      .filter((v) => v && typeof v === "object" && typeof v.id === "string" && v.id);
    const wanted = new Set(named.map((v) => v.id));
    const entries = this.fileEntries(field.path);
    for (const entry of [...entries]) if (entry.result && !wanted.has(entry.result.id)) this.dropEntry(entry);
    const held = new Set(entries.filter((e) => e.result).map((e) => e.result.id));
    for (const stored of named) {
      if (held.has(stored.id)) continue;
      const size = Number.isFinite(stored.size) ? formatSize(stored.size) : "";
      const entry = this.newEntry(typeof stored.filename === "string" && stored.filename ? stored.filename : t("file.uploadedFile"),
        [size, typeof stored.contentType === "string" ? stored.contentType : ""].filter(Boolean).join(" · "));
      entry.result = { id: stored.id };
      entry.progress.value = entry.progress.max;
      this.setEntryState(entry, "done", t("file.uploaded"));
      entries.push(entry);
    }
  }

  /** One file's row: its name, size, progress bar, state and Cancel, Retry and Remove buttons. */
  newEntry(name, size) {
    const progress = el("progress", { class: "fh-file-progress", max: 1, value: 0, "aria-label": t("file.uploadOf", { name }) });
    const status = el("span", { class: "fh-file-state", role: "status" });
    const button = (label, action) => el("button", {
      type: "button", class: "fh-button fh-secondary fh-small", "data-action": action, "aria-label": t("file.actionLabel", { action: label, name }), text: label,
    });
    const cancel = button(t("file.cancel"), "cancel");
    const retry = button(t("file.retry"), "retry");
    const remove = button(t("file.remove"), "remove");
    const node = el("li", { class: "fh-file-item" }, [
      el("div", { class: "fh-file-body" }, [
        el("span", { class: "fh-file-name", text: name }),
        el("span", { class: "fh-file-size", text: size }),
        progress, status,
      ]),
      el("div", { class: "fh-file-actions" }, [cancel, retry, remove]),
    ]);
    const entry = { name, file: null, node, progress, status, buttons: { cancel, retry, remove }, state: null, message: "", result: null, controller: null };
    cancel.addEventListener("click", () => this.removeEntry(entry));
    remove.addEventListener("click", () => this.removeEntry(entry));
    retry.addEventListener("click", () => this.startUpload(entry));
    return entry;
  }

  startUpload(entry) {
    const field = this.fileField(entry);
    if (!field) return;
    if (entry.controller) entry.controller.abort();
    entry.result = null;
    if (!this.options.upload) {
      this.setEntryState(entry, "kept", t("file.preview"));
      return;
    }
    const controller = new AbortController();
    entry.controller = controller;
    entry.progress.max = Math.max(entry.file.size, 1);
    entry.progress.value = 0;
    this.setEntryState(entry, "uploading", t("file.uploading"));
    this.options.upload(entry.file, field.path, {
      signal: controller.signal,
      onProgress: (sent, total) => {
        entry.progress.max = Math.max(total, 1);
        entry.progress.value = Math.min(sent, total);
      },
    }).then((result) => {
      if (controller.signal.aborted) return;
      entry.controller = null;
      entry.result = result;
      entry.progress.value = entry.progress.max;
      this.setEntryState(entry, "done", t("file.uploaded"));
      const current = this.fileField(entry);
      if (current) this.fileValueChanged(current);
    }, (error) => {
      if (controller.signal.aborted) return;
      entry.controller = null;
      const reason = error && error.message ? error.message : String(error);
      this.setEntryState(entry, "failed", t("file.failed", { name: entry.file.name, reason }));
      const current = this.fileField(entry);
      if (current) this.fileValueChanged(current);
    });
  }

  /** Shows an entry's state (uploading, done, failed, kept) and the buttons that fit it, keeping focus in the entry. */
  setEntryState(entry, state, message) {
    entry.state = state;
    entry.message = message;
    entry.node.dataset.state = state;
    entry.status.textContent = state === "failed" ? t("file.notUploaded") : message;
    entry.progress.hidden = state !== "uploading" && state !== "done";
    const { cancel, retry, remove } = entry.buttons;
    const hadFocus = entry.node.contains(document.activeElement);
    cancel.hidden = state !== "uploading";
    retry.hidden = state !== "failed";
    remove.hidden = state === "uploading";
    if (hadFocus && document.activeElement.hidden) [cancel, retry, remove].find((b) => !b.hidden).focus();
  }

  /** Cancels or removes a picked file (its upload aborted, its preview dropped) and moves focus back to the picker. */
  removeEntry(entry) {
    const field = this.fileField(entry);
    this.dropEntry(entry);
    if (!field) return;
    field.file.refusal = "";
    this.fileValueChanged(field);
    field.file.input.focus();
  }

  dropEntry(entry) {
    if (entry.controller) entry.controller.abort();
    entry.controller = null;
    for (const entries of this.files.values()) {
      const at = entries.indexOf(entry);
      if (at >= 0) entries.splice(at, 1);
    }
    entry.node.remove();
  }

  /** Writes a file input's value from its uploaded files: the upload id, or the ids when maxFiles > 1. */
  fileValueChanged(field) {
    const ids = this.fileEntries(field.path).filter((e) => e.state === "done" && e.result).map((e) => e.result.id);
    setAt(this.state, field.segments, field.file.limits.maxFiles > 1 ? (ids.length ? ids : undefined) : ids[0]);
    this.touched.add(field.path);
    this.refreshVisibility();
    const updated = this.runUpdates(field);
    this.reapplyErrors();
    this.changed(field.path);
    for (const target of updated) this.changed(target.path);
  }

  /** Moves the files of a repeat's items after item `removed` with their items (its own are dropped).
   * An upload names its input without the item (`rooms.photo` for `rooms[1].photo`), so a moved file stays valid. */
  moveFiles(groupPath, removed) {
    const files = new Map();
    for (const [path, entries] of this.files) {
      const next = shiftIndex(path, groupPath, removed);
      if (next !== null) files.set(next, entries);
      else for (const entry of entries) if (entry.controller) entry.controller.abort();
    }
    this.files = files;
  }

  /** How many files of the inputs shown are being uploaded now (a submission must wait for them). */
  uploading() {
    let count = 0;
    for (const field of this.fields.values()) {
      if (field.type === "file" && this.isShown(field)) count += this.fileEntries(field.path).filter((e) => e.state === "uploading").length;
    }
    return count;
  }

  /** Puts the stored value (if any) back into a freshly rendered field, e.g. after a repeat re-render. */
  restoreField(field) {
    if (field.type === "file") {
      if (this.restoring) this.adoptStoredFiles(field);
      field.file.list.replaceChildren(...this.fileEntries(field.path).map((entry) => entry.node));
      return;
    }
    let value = getAt(this.state, field.segments);
    // An input's `default` is what it starts with, as an option's is below, when it is new; values
    // given from outside (a draft) already say what the person had, and a field emptied since must
    // stay empty when a repeat is drawn again.
    if (value === undefined && this.isNew(field) && field.props.default !== undefined && field.props.default !== null
        && field.type !== "select" && typeof field.props.formula !== "string") {
      value = structuredClone(field.props.default);
      setAt(this.state, field.segments, value);
    }
    if (value === undefined && field.type === "count") {
      value = this.countStart(field.props) ?? undefined;
      setAt(this.state, field.segments, value);
    }
    if (value === undefined && field.type === "switch") {
      value = false;
      setAt(this.state, field.segments, value);
    }
    // An option's `default` is chosen when the field is new, as above.
    if (value === undefined && field.type === "select" && this.isNew(field)) {
      const chosen = (Array.isArray(field.props.options) ? field.props.options : [])
        .filter((option) => option && option.default === true).map((option) => String(option.id));
      if (chosen.length > 0) {
        value = field.props.multiple === true ? chosen : chosen[0];
        setAt(this.state, field.segments, value);
      }
    }
    if (value === undefined) return;
    this.drawValue(field, value);
  }

  /** Whether `field` is drawn for the first time: in the form's first drawing, or in a repeat item made now. */
  isNew(field) {
    for (let i = field.segments.length - 1; i >= 0; i--) {
      if (typeof field.segments[i] === "number") return this.freshItems.has(getAt(this.state, field.segments.slice(0, i + 1)));
    }
    return this.firstDraw;
  }

  /** Shows `value` (undefined for none) in a field's controls. */
  drawValue(field, value) {
    if (field.type === "switch") field.controls[0].checked = value === true;
    else if (field.type === "select" && field.props.multiple === true) {
      const chosen = new Set(value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)]);
      for (const box of field.controls) box.checked = chosen.has(box.value);
    } else field.controls[0].value = value === null || value === undefined ? "" : String(value);
  }

  /**
   * Runs the `updates` of other inputs that the person's change of `changed` sets off: each entry
   * whose condition reads that input and now holds puts its value in (null empties the input), as the
   * engine documents. An update is not a person's change, so it sets off no further updates.
   * Returns the fields it set, with the conditions evaluated again when there are any.
   */
  runUpdates(changed) {
    const set = [];
    // The person's new value is not the one the server last refused: conditions read it.
    this.rejected.delete(changed.path);
    if (!this.hasUpdates) return set;
    for (const target of this.fields.values()) {
      const updates = target.props.updates;
      if (target === changed || target.kind !== "input" || target.type === "file" || !Array.isArray(updates)) continue;
      const scope = target.segments.slice(0, -1);
      for (const update of updates) {
        if (!update || typeof update !== "object" || !("value" in update)) continue;
        if (!this.reads(update.when, scope, changed.path) || !this.evaluate(update.when, scope)) continue;
        const value = update.value === null ? undefined : structuredClone(update.value);
        setAt(this.state, target.segments, value);
        this.drawValue(target, value);
        if (!set.includes(target)) set.push(target);
      }
    }
    if (set.length > 0) this.refreshVisibility();
    return set;
  }

  /** Whether `condition`, read from `scope`, names the input at `path`. */
  reads(condition, scope, path) {
    if (!condition || typeof condition !== "object") return false;
    if (Array.isArray(condition.all)) return condition.all.some((c) => this.reads(c, scope, path));
    if (Array.isArray(condition.any)) return condition.any.some((c) => this.reads(c, scope, path));
    const found = typeof condition.field === "string" ? this.resolve(condition.field, scope) : null;
    return found !== null && found.path === path;
  }

  /** Reads one field's DOM into the values map, converting to the JSON type its rules expect. */
  readField(field) {
    let value;
    if (field.type === "switch") value = field.controls[0].checked;
    else if (field.type === "select" && field.props.multiple === true) {
      value = field.controls.filter((b) => b.checked).map((b) => b.value);
      if (value.length === 0) value = undefined;
    } else {
      const raw = field.controls[0].value;
      if (raw === "") value = undefined;
      else if (field.type === "integer" || field.type === "count") value = /^[+-]?\d+$/.test(raw) && Number.isSafeInteger(Number(raw)) ? Number(raw) : raw;
      else value = raw;
    }
    setAt(this.state, field.segments, value);
    this.touched.add(field.path);
    this.refreshVisibility();
    const updated = this.runUpdates(field);
    this.changed(field.path);
    for (const target of updated) this.changed(target.path);
  }

  changed(path) {
    if (this.options.onChange) this.options.onChange(this, path);
  }

  blurred(field) {
    this.touched.add(field.path);
    if (this.options.onBlur) this.options.onBlur(this, field.path);
  }

  /** Shows or hides every component with a visibleWhen, and enables or disables every input with an enabledWhen, from the current values. */
  refreshVisibility() {
    this.rejected = new Set(this.lastErrors.map((e) => String(e.field)));
    for (const entry of this.conditionals) {
      if (entry.enabling) {
        const enabled = this.evaluate(entry.condition, entry.scope);
        for (const control of entry.element.querySelectorAll("input, select, textarea")) control.disabled = !enabled;
        entry.element.classList.toggle("fh-disabled", !enabled);
        continue;
      }
      const visible = this.evaluate(entry.condition, entry.scope);
      entry.element.hidden = !visible;
      entry.element.classList.toggle("fh-hidden", !visible);
    }
  }

  evaluate(condition, scope) {
    if (!condition || typeof condition !== "object") return true;
    if (Array.isArray(condition.all)) return condition.all.every((c) => this.evaluate(c, scope));
    if (Array.isArray(condition.any)) return condition.any.some((c) => this.evaluate(c, scope));
    if (typeof condition.field !== "string") return true;
    const { value, type } = this.lookup(condition.field, scope);
    // As the engine, a state named in a condition on a `usstate` compares as its code.
    const operand = (v) => (type === "usstate" ? normalized(type, v) : v);
    if ("equals" in condition) return matches(value, operand(condition.equals));
    if ("notEquals" in condition) return !matches(value, operand(condition.notEquals));
    if (Array.isArray(condition.in)) return condition.in.some((v) => matches(value, operand(v)));
    if ("notEmpty" in condition) return isEmpty(value) !== (condition.notEmpty !== false);
    return true;
  }

  /**
   * Resolves a visibleWhen key path as the engine does: from the innermost enclosing group outwards,
   * entering the current item of a repeating group the component stands in. A hidden input, or one
   * the server last rejected, reads as absent: the engine only lets accepted values reach conditions;
   * but a switch left off reads as false even when refused (`required`), as in the engine.
   * Returns the value and the input's type.
   */
  lookup(field, scope) {
    const found = this.resolve(field, scope);
    if (found === null) return { value: undefined, type: null };
    const { input, segments, path } = found;
    if (!this.isShown(input)) return { value: undefined, type: input.type };
    if (this.rejected.has(path)) {
      const off = input.type === "switch" && [undefined, null, "", false, "false"].includes(getAt(this.state, segments));
      return { value: off ? false : undefined, type: input.type };
    }
    return { value: normalized(input.type, getAt(this.state, segments)), type: input.type };
  }

  /** The input a condition's key path names from `scope` (see `lookup`), with its segments and path, or null. */
  resolve(field, scope) {
    const names = String(field).split(".");
    for (let length = scope.length; length >= 0; length--) {
      if (length > 0 && typeof scope[length] === "number") continue;
      const candidate = scope.slice(0, length);
      for (const name of names) {
        candidate.push(name);
        const index = scope[candidate.length];
        if (typeof index === "number" && candidate.every((s, k) => scope[k] === s)) candidate.push(index);
      }
      const path = formatPath(candidate);
      const input = this.fields.get(path);
      if (input && input.kind === "input") return { input, segments: candidate, path };
    }
    return null;
  }

  isShown(field) {
    return !field.wrapper.closest("[hidden]");
  }

  /**
   * Shows validation errors (`[{field, code, message}]`) next to their fields. Until `showAll` (after a
   * submit attempt) only fields the user touched show theirs. Returns the errors no visible field took.
   */
  setErrors(errors, { showAll } = {}) {
    this.lastErrors = Array.isArray(errors) ? errors : [];
    if (showAll) this.showAllErrors = true;
    this.refreshVisibility();
    return this.reapplyErrors();
  }

  reapplyErrors() {
    const byPath = new Map();
    const unplaced = [];
    for (const error of this.lastErrors) {
      const field = this.fieldAt(String(error.field));
      if (!field || !this.isShown(field)) {
        unplaced.push(error);
        continue;
      }
      if (!byPath.has(field.path)) byPath.set(field.path, []);
      byPath.get(field.path).push(error);
    }
    for (const field of this.fields.values()) {
      const list = byPath.get(field.path) || [];
      // A file refused before it was sent, or whose upload failed, shows at once, touched or not; the
      // server's word on a file input is stale while one of its files is on its way.
      const local = field.type === "file" ? this.fileProblems(field) : [];
      const arriving = field.type === "file" && this.fileEntries(field.path).some((e) => e.state === "uploading");
      const fromServer = list.length > 0 && !arriving && (this.showAllErrors || this.touched.has(field.path));
      const show = fromServer || local.length > 0;
      field.error.textContent = [...local, ...(fromServer ? list.map((e) => e.message || e.code) : [])].join(" ");
      field.wrapper.classList.toggle("fh-invalid", show);
      field.wrapper.classList.toggle("fh-valid", !list.length && !local.length && this.touched.has(field.path) && field.kind === "input");
      const target = field.invalidTarget || field.wrapper;
      if (show) target.setAttribute("aria-invalid", "true");
      else target.removeAttribute("aria-invalid");
    }
    return unplaced;
  }

  /** The field an error's key path names; `photo[1]` (one file of several) names the file input `photo`. */
  fieldAt(path) {
    const field = this.fields.get(path);
    if (field) return field;
    const m = /^(.*)\[\d+\]$/.exec(path);
    const files = m && this.fields.get(m[1]);
    return files && files.type === "file" ? files : undefined;
  }

  /**
   * Shows the values the engine computed (`/validate`'s `computed`, by key path) in their read-only
   * inputs. What a person typed is not changed, and a computed value is not sent back as an answer:
   * the engine computes it again from the answers.
   */
  setComputed(computed) {
    if (!computed || typeof computed !== "object") return;
    for (const [path, value] of Object.entries(computed)) {
      const field = this.fields.get(path);
      if (!field || typeof field.props.formula !== "string" || !field.controls || !field.controls[0]) continue;
      this.drawValue(field, value);
    }
  }

  /** Moves focus to the first field showing an error; returns whether there was one. */
  focusFirstError() {
    for (const field of this.fields.values()) {
      if (field.wrapper.classList.contains("fh-invalid") && field.focusTarget) {
        field.focusTarget.focus();
        return true;
      }
    }
    return false;
  }

  /** Disables or enables every control (while a submission is in flight). */
  setDisabled(disabled) {
    for (const control of this.element.querySelectorAll("input, select, textarea, button")) {
      if (disabled) {
        control.dataset.wasDisabled = control.disabled ? "1" : "";
        control.disabled = true;
      } else {
        control.disabled = control.dataset.wasDisabled === "1";
        delete control.dataset.wasDisabled;
      }
    }
  }
}

/** A `file` input's accept, maxSize and maxFiles, with the engine's defaults where they are absent. */
function fileLimits(props) {
  return {
    accept: Array.isArray(props.accept) ? props.accept.filter((a) => typeof a === "string" && a) : [],
    maxSize: Number.isFinite(props.maxSize) && props.maxSize > 0 ? props.maxSize : DEFAULT_MAX_FILE_SIZE,
    maxFiles: Number.isInteger(props.maxFiles) && props.maxFiles > 0 ? props.maxFiles : 1,
  };
}

/** "Images, PDF · up to 10 MB": what a file input takes, under its label. */
function fileHint({ accept, maxSize, maxFiles }) {
  const kinds = describeAccept(accept);
  const size = maxFiles > 1 ? t("file.limitEach", { size: formatSize(maxSize), count: maxFiles }) : t("file.limit", { size: formatSize(maxSize) });
  const hint = kinds ? `${kinds} · ${size}` : size;
  return hint.charAt(0).toUpperCase() + hint.slice(1);
}

/**
 * Draws a picked image, scaled down, on a canvas at the head of its entry. A canvas, not an object URL
 * in an <img>: the pages' Content-Security-Policy allows images from 'self' and data: only. An image
 * the browser cannot decode gets no preview; its name and size still show.
 */
async function drawPreview(file, node, name) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return;
  }
  const scale = Math.min(1, PREVIEW_SIZE / Math.max(bitmap.width, bitmap.height, 1));
  const canvas = el("canvas", { class: "fh-file-preview", role: "img", "aria-label": t("file.previewOf", { name }) });
  canvas.width = Math.max(1, Math.round(bitmap.width * scale));
  canvas.height = Math.max(1, Math.round(bitmap.height * scale));
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  node.prepend(canvas);
}

function shiftIndex(path, groupPath, removed) {
  const prefix = `${groupPath}[`;
  if (!path.startsWith(prefix)) return path;
  const m = /^(\d+)\]/.exec(path.slice(prefix.length));
  if (!m) return path;
  const index = Number(m[1]);
  if (index === removed) return null;
  if (index < removed) return path;
  return `${prefix}${index - 1}]${path.slice(prefix.length + m[0].length)}`;
}
