// A line diff (longest common subsequence) of two texts, used to compare pretty-printed definitions.

/**
 * Diffs `before` and `after` line by line. Returns entries `{ op, text, oldLine, newLine }` where op is
 * " " (same), "-" (only before) or "+" (only after); line numbers are 1-based or null.
 */
export function diffLines(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const out = [];
  for (let k = 0; k < head; k++) out.push({ op: " ", text: a[k], oldLine: k + 1, newLine: k + 1 });
  const n = midA.length;
  const m = midB.length;
  const width = m + 1;
  // Past a few million cells the table gets heavy for a browser tab; show the middle as replaced.
  if (n * m > 4_000_000) {
    midA.forEach((text, k) => out.push({ op: "-", text, oldLine: head + k + 1, newLine: null }));
    midB.forEach((text, k) => out.push({ op: "+", text, oldLine: null, newLine: head + k + 1 }));
  } else {
    const table = new Uint32Array((n + 1) * width);
    for (let x = n - 1; x >= 0; x--) {
      for (let y = m - 1; y >= 0; y--) {
        table[x * width + y] = midA[x] === midB[y]
          ? table[(x + 1) * width + y + 1] + 1
          : Math.max(table[(x + 1) * width + y], table[x * width + y + 1]);
      }
    }
    let x = 0;
    let y = 0;
    while (x < n || y < m) {
      if (x < n && y < m && midA[x] === midB[y]) {
        out.push({ op: " ", text: midA[x], oldLine: head + x + 1, newLine: head + y + 1 });
        x++;
        y++;
      } else if (y >= m || (x < n && table[(x + 1) * width + y] >= table[x * width + y + 1])) {
        out.push({ op: "-", text: midA[x], oldLine: head + x + 1, newLine: null });
        x++;
      } else {
        out.push({ op: "+", text: midB[y], oldLine: null, newLine: head + y + 1 });
        y++;
      }
    }
  }
  for (let k = 0; k < tail; k++) {
    const oldLine = a.length - tail + k;
    const newLine = b.length - tail + k;
    out.push({ op: " ", text: a[oldLine], oldLine: oldLine + 1, newLine: newLine + 1 });
  }
  return out;
}

/**
 * Groups a diff into runs to show: changed lines with `context` unchanged lines around them, and
 * `{ gap: count }` markers for the unchanged stretches left out.
 */
export function foldDiff(entries, context = 3) {
  const keep = new Array(entries.length).fill(false);
  entries.forEach((e, k) => {
    if (e.op === " ") return;
    for (let j = Math.max(0, k - context); j <= Math.min(entries.length - 1, k + context); j++) keep[j] = true;
  });
  const out = [];
  let gap = 0;
  entries.forEach((e, k) => {
    if (keep[k]) {
      if (gap) out.push({ gap });
      gap = 0;
      out.push(e);
    } else gap++;
  });
  if (gap) out.push({ gap });
  return out;
}
