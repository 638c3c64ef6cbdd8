// The interface's own words (buttons, headings, statuses) in the browser's language. The texts live
// in /i18n/<language>.json, one file per language that a translator edits without reading code; this
// module fetches the chosen one (and English, for keys a translation lacks) once, with a top-level
// await, so every module importing it can call `t` synchronously. Fetching JSON keeps to the CSP
// (`connect-src 'self'`, no eval, no inline script).

/** The interface languages, English first: the one used when the browser asks for none of them. */
export const LANGUAGES = ["en", "pt-BR", "es"];

/** Ranges answered by another language, as the server's messages do: all Portuguese reads pt-BR. */
const ALIASES = { pt: "pt-BR" };

/**
 * RFC 4647 lookup of the ranges `preferred` (best first) among the tags `available`: each range is
 * tried whole, then without its last subtag (`es-MX` finds `es`, never the other way round). The tag
 * found, as `available` spells it, or null.
 */
export function lookup(preferred, available) {
  for (const tag of preferred || []) {
    for (let range = String(tag || "").toLowerCase(); range; range = shortened(range)) {
      const found = available.find((candidate) => candidate.toLowerCase() === range);
      if (found) return found;
    }
  }
  return null;
}

/** The interface language for the browser's `preferred` languages: `pt-PT` finds `pt`, read as pt-BR; English when none matches. */
export function pickLanguage(preferred) {
  const found = lookup(preferred, [...LANGUAGES, ...Object.keys(ALIASES)]);
  return ALIASES[found] || found || LANGUAGES[0];
}

/** A language range without its last subtag, never leaving a single-character one (`x`, `u`) last. */
function shortened(range) {
  const cut = range.lastIndexOf("-");
  if (cut < 0) return "";
  const shorter = range.slice(0, cut);
  return /-[a-z0-9]$/i.test(shorter) ? shorter.slice(0, -2) : shorter;
}

/** The language the interface speaks on this page. */
export const language = pickLanguage(typeof navigator === "undefined" ? [] : navigator.languages || [navigator.language]);

async function loadTexts(tag) {
  try {
    const response = await fetch(`/i18n/${tag}.json`);
    return response.ok ? await response.json() : {};
  } catch {
    // A missing file leaves English (or the key itself) showing rather than a page that never starts.
    return {};
  }
}

const [chosen, english] = await Promise.all([
  loadTexts(language), language === LANGUAGES[0] ? Promise.resolve(null) : loadTexts(LANGUAGES[0]),
]);
const plurals = new Intl.PluralRules(language);
const numbers = new Intl.NumberFormat(language);

/**
 * The text of `key` in the chosen language, `{name}` placeholders filled from `values` (numbers
 * written the language's way). A text with plural forms (`{"one": …, "other": …}`) is chosen by
 * `values.count`. Falls back to English, then to the key, so a missing translation never blanks a button.
 */
export function t(key, values = {}) {
  let entry = chosen[key] ?? (english && english[key]) ?? key;
  if (entry && typeof entry === "object") {
    const form = plurals.select(Number(values.count));
    entry = entry[form] ?? entry.other ?? key;
  }
  return String(entry).replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in values)) return whole;
    const value = values[name];
    return typeof value === "number" ? numbers.format(value) : String(value);
  });
}

/** A number written the chosen language's way ("1,234" in English, "1.234" in Portuguese). */
export function formatNumber(value, options) {
  return options ? new Intl.NumberFormat(language, options).format(value) : numbers.format(value);
}

/** A date and time written the chosen language's way. */
export function formatDateTime(date, options) {
  return new Intl.DateTimeFormat(language, options).format(date);
}

/**
 * Puts the chosen language's texts in a page's static HTML: an element's text from `data-i18n`, its
 * attributes from `data-i18n-<attribute>` (`data-i18n-aria-label`, `data-i18n-placeholder`).
 */
export function translatePage(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const element of root.querySelectorAll("*")) {
    for (const attribute of [...element.attributes]) {
      if (attribute.name.startsWith("data-i18n-")) element.setAttribute(attribute.name.slice(10), t(attribute.value));
    }
  }
}
