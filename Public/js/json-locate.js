// Finds where each JSON Pointer of a JSON text starts, so the console can put a definition error
// (`"pointer": "/components/3/email/regex"`) on the line the admin wrote it.

/** Escapes one reference token of a JSON Pointer (RFC 6901). */
function escapeToken(token) {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Maps every pointer in `text` (which must be valid JSON) to `{ start, end }` offsets: `start` is the
 * member's key when the value is an object member, else the value itself; `end` is the value's end.
 */
export function locatePointers(text) {
  const map = new Map();
  let i = 0;
  const n = text.length;
  const skip = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const string = () => {
    const from = i;
    i++;
    while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(from, i));
  };
  const value = (pointer, keyStart) => {
    skip();
    const from = i;
    const c = text[i];
    if (c === "{") {
      i++;
      skip();
      if (text[i] === "}") i++;
      else {
        while (i < n) {
          skip();
          const keyAt = i;
          const key = string();
          skip();
          i++;
          value(`${pointer}/${escapeToken(key)}`, keyAt);
          skip();
          const sep = text[i++];
          if (sep !== ",") break;
        }
      }
    } else if (c === "[") {
      i++;
      skip();
      if (text[i] === "]") i++;
      else {
        let index = 0;
        while (i < n) {
          value(`${pointer}/${index++}`, undefined);
          skip();
          const sep = text[i++];
          if (sep !== ",") break;
        }
      }
    } else if (c === '"') {
      string();
    } else {
      while (i < n && !",}] \t\n\r".includes(text[i])) i++;
    }
    map.set(pointer, { start: keyStart ?? from, end: i });
  };
  value("", undefined);
  return map;
}

/**
 * The location of `pointer` in a map from locatePointers; when the pointer names something absent
 * (a missing property), the nearest existing parent, with `exact: false`.
 */
export function findPointer(map, pointer) {
  let current = typeof pointer === "string" ? pointer : "";
  if (current !== "" && !current.startsWith("/")) current = `/${current}`;
  while (!map.has(current) && current !== "") current = current.slice(0, current.lastIndexOf("/"));
  const entry = map.get(current);
  return entry ? { ...entry, exact: current === pointer, pointer: current } : null;
}

/** 1-based line and column of an offset. */
export function lineColumn(text, offset) {
  let line = 1;
  let lineStart = 0;
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text.charCodeAt(k) === 10) {
      line++;
      lineStart = k + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
