// What the renderer, the form page and the console share about files: sizes in words, the `accept`
// test a `file` input makes before anything is sent, the header that names an upload, and the stored
// file objects a submission's values hold.

import { t, formatNumber } from "./i18n.js";

/** A byte count for people: "812 bytes", "14.2 KB", "10 MB" (1 KB = 1024 bytes), in the interface's language. */
export function formatSize(bytes) {
  const n = Number(bytes);
  if (!Number.isFinite(n) || n < 0) return "";
  if (n < 1024) return t("size.bytes", { count: n });
  const units = ["KB", "MB", "GB", "TB"];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const rounded = value >= 100 ? Math.round(value) : Math.round(value * 10) / 10;
  return `${formatNumber(rounded, { useGrouping: false })} ${units[unit]}`;
}

/** A media type without its parameters, lower-cased: "Image/PNG; x=1" → "image/png". */
function bareType(type) {
  return String(type || "").split(";")[0].trim().toLowerCase();
}

/**
 * Whether a file of media type `type` passes `accept` (media types and `type/*` patterns; absent or
 * empty means any). A file whose type the browser does not know passes: the server reads its bytes
 * and decides.
 */
export function accepts(accept, type) {
  if (!Array.isArray(accept) || accept.length === 0) return true;
  const actual = bareType(type);
  if (!actual) return true;
  return accept.some((pattern) => {
    const wanted = bareType(pattern);
    if (wanted === "*/*" || wanted === "*") return true;
    if (wanted.endsWith("/*")) return actual.startsWith(wanted.slice(0, -1));
    return actual === wanted;
  });
}

/** `accept` in words for the field's hint: ["image/*", "application/pdf"] → "images, PDF". */
export function describeAccept(accept) {
  if (!Array.isArray(accept) || accept.length === 0) return "";
  return accept.map((pattern) => {
    const wanted = bareType(pattern);
    const [kind, sub] = wanted.split("/");
    if (sub === "*") return kind === "*" ? t("accept.any") : kind === "image" ? t("accept.images") : t("accept.kind", { kind });
    const plain = (sub || "").replace(/^x-/, "");
    return /^[a-z0-9]{1,5}$/.test(plain) ? plain.toUpperCase() : wanted;
  }).join(", ");
}

/**
 * The `Content-Disposition` an upload is sent with (RFC 6266): `filename="…"` for a printable ASCII
 * name, `filename*=UTF-8''…` (RFC 8187) for any other, as a header value must be bytes.
 */
export function contentDisposition(name) {
  const filename = String(name || "file");
  if (/^[\x20-\x7e]*$/.test(filename)) return `attachment; filename="${filename.replace(/["\\]/g, "\\$&")}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename*=UTF-8''${encoded}`;
}

/** Whether a value is a stored file as the admin API gives it: `{"id", "contentType", "size", "sha256", "filename"}`. */
export function isStoredFile(value) {
  return Boolean(value) && typeof value === "object" && !Array.isArray(value)
    && typeof value.id === "string" && typeof value.sha256 === "string" && Number.isFinite(value.size);
}

/** A stored file in one line: "photo.png (image/png, 14.2 KB)". */
export function describeStoredFile(file) {
  return `${file.filename || file.id} (${file.contentType || t("file.unknownType")}, ${formatSize(file.size)})`;
}
