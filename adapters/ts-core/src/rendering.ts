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

/** Keep structure lines and as many entries, in order, as fit in `room` characters. */
function fitEntries(lines: string[], room: number): string[] {
  let entries = lines.flatMap((line, i) => (ENTRY.test(line) ? [i] : []));
  let structure = lines.flatMap((line, i) => (ENTRY.test(line) ? [] : [i]));
  if (entries.length === 0) {
    entries = lines.map((_, i) => i);
    structure = [];
  }
  let used = structure.reduce((sum, i) => sum + (lines[i]?.length ?? 0) + 1, 0);
  const keep = new Set(structure);
  for (const i of entries) {
    const cost = (lines[i]?.length ?? 0) + 1;
    if (used + cost <= room + 1) {
      keep.add(i);
      used += cost;
    }
  }
  if (keep.size === structure.length) return [];
  return lines.filter((_, i) => keep.has(i));
}
