/** Splitting long text at the best boundary (paragraph, line, sentence, word), so nothing is cut. */

const BREAKS = [/\n\s*\n/gu, /\n/gu, /(?<=[.!?。！？])\s+/gu];

/** Pieces of at most `maxChars`; joined, they lose nothing but the whitespace at the cuts. */
export function splitText(text: string, maxChars: number): string[] {
  if (text.length <= maxChars) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxChars) {
    const cut = bestCut(rest, maxChars);
    const head = rest.slice(0, cut).trimEnd();
    rest = rest.slice(cut).trimStart();
    if (head) pieces.push(head);
  }
  if (rest) pieces.push(rest);
  return pieces;
}

function bestCut(text: string, maxChars: number): number {
  const window = text.slice(0, maxChars + 1);
  const half = Math.floor(maxChars / 2);
  for (const pattern of BREAKS) {
    const found = [...window.matchAll(pattern)].filter((m) => m.index > half);
    let ends = found.map((m) => m.index + m[0].length).filter((end) => end <= maxChars);
    if (ends.length === 0) ends = found.map((m) => m.index).filter((start) => start <= maxChars);
    const last = ends.at(-1);
    if (last !== undefined) return last;
  }
  const space = window.lastIndexOf(" ", maxChars - 1);
  return space >= half && space > 0 ? space : maxChars;
}
