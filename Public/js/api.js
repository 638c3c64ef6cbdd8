// A small fetch wrapper shared by the renderer page and the console: it sends JSON, reads JSON,
// sends a file with its progress, and turns RFC 9457 problem details into thrown ProblemError values.

import { t } from "./i18n.js";

/** An HTTP answer that was not 2xx (or 304), with its problem details when the server sent them. */
export class ProblemError extends Error {
  constructor(status, problem, headers) {
    const p = problem && typeof problem === "object" ? problem : {};
    super(p.detail || p.title || `HTTP ${status}`);
    this.name = "ProblemError";
    this.status = status;
    this.title = p.title || `HTTP ${status}`;
    this.detail = p.detail || "";
    this.type = p.type || "about:blank";
    this.errors = Array.isArray(p.errors) ? p.errors : [];
    this.problem = p;
    this.headers = headers;
  }
}

/** The request never got an answer (server down, connection refused, aborted). */
export class NetworkError extends Error {
  constructor(cause) {
    super(t("network.unreachable"));
    this.name = "NetworkError";
    this.cause = cause;
  }
}

/**
 * Sends a request and reads the answer.
 * options: method, body (serialized as JSON unless it is a string or Blob), token (Bearer),
 * headers, as ("json" | "text" | "blob"), signal, keepalive (the request outlives the page, as when
 * it is being closed).
 * Resolves to { status, headers, data }; rejects with ProblemError or NetworkError.
 */
export async function request(path, options = {}) {
  const { method = "GET", body, token, headers = {}, as = "json", signal, keepalive = false } = options;
  const sent = new Headers(headers);
  if (!sent.has("Accept")) {
    sent.set("Accept", as === "json" ? "application/json, application/problem+json" : "*/*");
  }
  if (token) sent.set("Authorization", `Bearer ${token}`);
  let payload;
  if (body !== undefined) {
    if (typeof body === "string" || body instanceof Blob) {
      payload = body;
    } else {
      payload = JSON.stringify(body);
    }
    if (!sent.has("Content-Type")) sent.set("Content-Type", "application/json");
  }
  let response;
  try {
    response = await fetch(path, {
      method, headers: sent, body: payload, signal, keepalive, credentials: "same-origin", cache: "no-store",
    });
  } catch (cause) {
    if (cause && cause.name === "AbortError") throw cause;
    throw new NetworkError(cause);
  }
  if (!response.ok && response.status !== 304) {
    throw new ProblemError(response.status, await readProblem(response), response.headers);
  }
  let data = null;
  if (response.status !== 204 && response.status !== 304) {
    if (as === "blob") data = await response.blob();
    else if (as === "text") data = await response.text();
    else data = await readJSON(response);
  }
  return { status: response.status, headers: response.headers, data };
}

/**
 * Sends `file` as the raw body of a POST to `path` (a simple upload) and reads the JSON answer.
 * XMLHttpRequest rather than fetch, because only it reports the bytes sent as they go.
 * options: onProgress(sent, total), signal (aborting rejects with an AbortError, as fetch does),
 * headers. Resolves to { status, headers, data }; rejects with ProblemError or NetworkError.
 */
export function upload(path, file, options = {}) {
  const { onProgress, signal, headers = {} } = options;
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(new DOMException("The upload was cancelled.", "AbortError"));
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open("POST", path);
    xhr.setRequestHeader("Accept", "application/json, application/problem+json");
    xhr.setRequestHeader("Content-Type", file.type || "application/octet-stream");
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    const abort = () => xhr.abort();
    if (signal) signal.addEventListener("abort", abort, { once: true });
    const done = () => signal && signal.removeEventListener("abort", abort);
    if (onProgress) {
      xhr.upload.addEventListener("progress", (event) => onProgress(event.loaded, event.lengthComputable ? event.total : file.size));
    }
    xhr.addEventListener("load", () => {
      done();
      const answerHeaders = responseHeaders(xhr);
      let data = null;
      try {
        data = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        data = { title: xhr.statusText || `HTTP ${xhr.status}`, detail: xhr.responseText.slice(0, 300) };
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve({ status: xhr.status, headers: answerHeaders, data });
      else reject(new ProblemError(xhr.status, data, answerHeaders));
    });
    xhr.addEventListener("error", () => {
      done();
      reject(new NetworkError(new Error("upload failed")));
    });
    xhr.addEventListener("abort", () => {
      done();
      reject(new DOMException("The upload was cancelled.", "AbortError"));
    });
    xhr.send(file);
  });
}

function responseHeaders(xhr) {
  const headers = new Headers();
  for (const line of xhr.getAllResponseHeaders().trim().split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return headers;
}

async function readJSON(response) {
  const text = await response.text();
  if (text.length === 0) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function readProblem(response) {
  const text = await response.text().catch(() => "");
  try {
    return JSON.parse(text);
  } catch {
    return { title: response.statusText || `HTTP ${response.status}`, detail: text.slice(0, 300) };
  }
}

/** Reads the version number out of an `ETag: "<version>"` header (null when absent or not numeric). */
export function versionFromETag(headers) {
  const tag = headers && headers.get("ETag");
  if (!tag) return null;
  const match = /^(?:W\/)?"?(\d+)"?$/.exec(tag.trim());
  return match ? Number(match[1]) : null;
}

/** A new Idempotency-Key; falls back to getRandomValues where randomUUID needs a secure context. */
export function newIdempotencyKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Percent-encodes one path segment (form ids, submission ids). */
export function segment(value) {
  return encodeURIComponent(String(value));
}
