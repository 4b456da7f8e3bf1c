/**
 * Neutralising stored text that could pass for prompt structure: tags and role labels.
 *
 * Tags are matched on a skeleton of their name (compatibility-normalised, invisible characters and
 * separators dropped, Cyrillic and Greek look-alikes folded to Latin, upper case), so
 * `</ZEP_CONTEXT x="1">`, `＜/ZEP_CONTEXT＞` or a zero-width character inside the name are caught
 * too. A matching tag keeps its text but loses its brackets (`&lt;`, `&gt;`).
 */

const OPENERS = "<\uff1c\ufe64\u2039\u2329\u3008\u27e8\u276e\u276c\u02c2\u1438";
const CLOSERS = ">\uff1e\ufe65\u203a\u232a\u3009\u27e9\u276f\u276d\u02c3\u1433";
const CANDIDATE = new RegExp(`[${OPENERS}]([^${OPENERS}${CLOSERS}]{0,80})([${CLOSERS}])?`, "gu");
const LOOKALIKES_FROM = "АВЕЅІЈКМНОРСТХУаеіјорсхуѕкмнтвԁԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧαεικνορτυχı";
const LOOKALIKES_TO = "ABESIJKMHOPCTXYAEIJOPCXYSKMHTBDQWABEZHIKMNOPTYXAEIKVOPTYXI";
const LOOKALIKES = new Map([...LOOKALIKES_FROM].map((char, i) => [char, LOOKALIKES_TO[i] ?? char]));
const STRUCTURE = /^[^\S\n]*<\/?[A-Za-z_][\w.:-]*>[^\S\n]*$/u;
const ROLE_LINE = /^[^\S\n]*([\p{L}_][^\s:：]{0,24})[^\S\n]*[:：]/u;
const HIDDEN = /^\p{Cf}$/u;

/** The tags of the default template and of Zep's context layout. */
export const LAYOUT_TAGS: readonly string[] = [
  "ZEP_CONTEXT",
  "USER_SUMMARY",
  "USER_PROFILE",
  "FACTS",
  "ENTITIES",
  "EPISODES",
  "MORE_USER_PROFILE",
];
const ROLE_LABELS = new Set([
  "SYSTEM",
  "ASSISTANT",
  "USER",
  "HUMAN",
  "DEVELOPER",
  "TOOL",
  "AI",
  "MODEL",
  "FUNCTION",
]);

/** `text` as a model would read a tag name: look-alikes folded, separators gone, upper case. */
export function skeleton(text: string): string {
  const folded = [...text.normalize("NFKC")].map((char) => LOOKALIKES.get(char) ?? char).join("");
  return [...folded.toUpperCase()].filter((c) => (c >= "A" && c <= "Z") || (c >= "0" && c <= "9")).join("");
}

function escapeWhere(text: string, matches: (name: string) => boolean, spaced: boolean): string {
  return text.replace(CANDIDATE, (whole: string, body: string, close: string | undefined) => {
    const lead = body.trimStart();
    const first = lead.charAt(0);
    const startsLikeATag =
      lead.length > 0 &&
      ("/\uff0f\\|!?".includes(first) ||
        ((spaced || lead === body) && (/^\p{L}$/u.test(first) || first === "_")) ||
        HIDDEN.test(first));
    if (!startsLikeATag || !matches(skeleton(body))) return whole;
    return "&lt;" + body + (close ? "&gt;" : "");
  });
}

/** Neutralise every opening or closing form of `tags` in `text` (attributes and look-alikes
 * included, case-insensitive). */
export function escapeTags(text: string, tags: Iterable<string>): string {
  const names = [...tags].map(skeleton).filter(Boolean);
  if (names.length === 0) return text;
  return escapeWhere(text, (found) => names.some((name) => found.startsWith(name)), true);
}

/** Neutralise every tag-like construct; with `keepStructure`, a line that is nothing but one tag
 * (the layout's `<FACTS>`) stays. */
export function escapeAllTags(text: string, keepStructure = false): string {
  if (!keepStructure) return escapeWhere(text, () => true, false);
  return text
    .split("\n")
    .map((line) => (STRUCTURE.test(line) ? line : escapeWhere(line, () => true, false)))
    .join("\n");
}

/** Join a line that starts with a role label ("SYSTEM:") to the line before it, so stored line
 * breaks cannot put an instruction at the start of a prompt line. */
export function defuseRoleLines(text: string): string {
  const kept: string[] = [];
  for (let line of text.split("\n")) {
    const match = ROLE_LINE.exec(line);
    if (match?.[1] !== undefined && ROLE_LABELS.has(skeleton(match[1]))) {
      const last = kept.at(-1);
      if (last !== undefined && last.trim()) {
        kept[kept.length - 1] = last.trimEnd() + " " + line.trim();
        continue;
      }
      line = "- " + line.trim();
    }
    kept.push(line);
  }
  return kept.join("\n");
}

/** One stored item as one line: whitespace, line breaks included, collapsed. */
export function oneLine(text: string): string {
  return text.split(/\s+/u).filter(Boolean).join(" ");
}
