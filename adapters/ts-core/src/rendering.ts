/**
 * Turning the context Zep (or `zepkit serve`) returns into the prompt block: the one template,
 * escaping and the size budget, worded exactly as the Python core renders it.
 */
import { defuseRoleLines, escapeAllTags, escapeTags } from "./escaping.js";
import { DEFAULT_CONTEXT_CHARS } from "./limits.js";

export const PLACEHOLDER = "{context}";

export const DEFAULT_TEMPLATE =
  "The following context comes from the agent's long-term memory: relevant facts, entities and " +
  "prior knowledge about the user. Use it to inform your responses. Where it disagrees with the " +
  "current conversation, the current conversation is right.\n\n" +
  "<ZEP_CONTEXT>\n{context}\n</ZEP_CONTEXT>";

const TAG = /<\s*\/?\s*([A-Za-z_][\w.:-]*)[^<>]*>/gu;
const ENTRY = /^\s*- /u;

/** Throws unless the template holds `{context}` exactly once. */
export function checkTemplate(template: string): string {
  const count = template.split(PLACEHOLDER).length - 1;
  if (count !== 1) {
    throw new Error(`context template must contain '${PLACEHOLDER}' exactly once (found ${count})`);
  }
  return template;
}

function templateTags(template: string): string[] {
  return [...template.matchAll(TAG)].map((match) => (match[1] ?? "").toUpperCase());
}

/** Wrap backend context in the template; `""` when there is nothing to say. Past `maxChars`,
 * whole entries (`- ...` lines) are dropped from the end, never cut in half. */
export function renderContext(
  context: string | null | undefined,
  template: string = DEFAULT_TEMPLATE,
  maxChars: number | null = DEFAULT_CONTEXT_CHARS,
): string {
  if (context == null || !context.trim()) return "";
  checkTemplate(template);
  let body = escapeTags(context.replace(/^\n+|\n+$/gu, ""), templateTags(template));
  body = defuseRoleLines(escapeAllTags(body, true));
  const rendered = template.replace(PLACEHOLDER, () => body);
  if (maxChars === null || rendered.length <= maxChars) return rendered;
  const room = maxChars - (template.length - PLACEHOLDER.length);
  const kept = fitEntries(body.split("\n"), room);
  if (kept.length === 0) return "";
  return template.replace(PLACEHOLDER, () => kept.join("\n"));
}

/** Keep as many entries, in order, as fit in `room` characters with their sections' headers and
 * tags (sections are separated by blank lines). A section's structure is paid for with its first
 * kept entry, so a section that keeps none goes whole and never takes room from the entries
 * before it; text outside any section with entries always stays. */
function fitEntries(lines: string[], room: number): string[] {
  let entry = lines.map((line) => ENTRY.test(line));
  if (!entry.some(Boolean)) entry = lines.map(() => true); // free text: whole lines from the top
  const sections = sectionsOf(lines);
  const listing = new Set(sections.filter((_, i) => entry[i]));
  const structure = new Map<number, number[]>();
  lines.forEach((_, i) => {
    if (entry[i]) return;
    const section = listing.has(sections[i] ?? -1) ? (sections[i] ?? -1) : -1;
    structure.set(section, [...(structure.get(section) ?? []), i]);
  });
  const keep = new Set(structure.get(-1) ?? []);
  const width = (i: number): number => (lines[i]?.length ?? 0) + 1;
  let used = [...keep].reduce((sum, i) => sum + width(i), 0);
  const opened = new Set<number>();
  let kept = 0;
  lines.forEach((_, i) => {
    if (!entry[i]) return;
    const section = sections[i] ?? -1;
    const extra = opened.has(section) ? [] : (structure.get(section) ?? []);
    const cost = width(i) + extra.reduce((sum, j) => sum + width(j), 0);
    if (used + cost <= room + 1) {
      for (const j of [i, ...extra]) keep.add(j);
      opened.add(section);
      used += cost;
      kept += 1;
    }
  });
  if (kept === 0) return [];
  return singleBlanks(lines.filter((_, i) => keep.has(i)));
}

/** Each line's section number: sections are separated by blank lines (a blank line belongs to the
 * section after it, so a section that goes takes its separator along). */
function sectionsOf(lines: string[]): number[] {
  let number = 0;
  let blankBefore = false;
  return lines.map((line) => {
    const blank = line.trim() === "";
    if (blank && !blankBefore) number += 1;
    blankBefore = blank;
    return number;
  });
}

/** `lines` without leading, trailing or repeated blank lines. */
function singleBlanks(lines: string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    if (line.trim() !== "" || (out.length > 0 && (out[out.length - 1] ?? "").trim() !== "")) {
      out.push(line);
    }
  }
  while (out.length > 0 && (out[out.length - 1] ?? "").trim() === "") out.pop();
  return out;
}
