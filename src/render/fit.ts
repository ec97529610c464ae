/*
 * Text held under a size limit by cutting its lists, the longest first, each
 * to its first items and a "+N more": what the reader loses is the tail of
 * the longest enumeration, never a sentence, a figure or a command.
 */

/** A list inside a line (or a run of lines): its items, what joins them, and the words for the ones left out. */
export interface ItemList {
  items: readonly string[];
  separator: string;
  /** What stands for the `hidden` items left out (put after the last one shown). */
  more: (hidden: number) => string;
  /** Show at most this many, whatever the room (the list's own limit); all when absent. */
  atMost?: number;
}

/** A line of text: plain pieces and lists. */
export type Line = readonly (string | ItemList)[];

/** A list of items separated by `separator`, the rest stood for by " +N more" (or what `more` says). */
export function itemList(items: readonly string[], separator = ', ', more: (hidden: number) => string = (n) => ` +${n} more`, atMost?: number): ItemList {
  return atMost === undefined ? { items, separator, more } : { items, separator, more, atMost };
}

/** How long `text` is once written as a JSON string (quotes, escapes and all). */
export function jsonLength(text: string): number {
  return JSON.stringify(text).length;
}

/** What `text` adds to a JSON string it is part of (escaping is per character, so these add up). */
function cost(text: string): number {
  return jsonLength(text) - 2;
}

export interface Fitted {
  text: string;
  /** Whether anything was left out to fit. */
  cut: boolean;
}

/** One list as it is being cut: how many items it shows, and what its shown part costs. */
interface Cutting {
  list: ItemList;
  costs: number[];
  separator: number;
  count: number;
  shown: number;
}

/**
 * `lines` joined by newlines, with as many items of each list as fit in
 * `budget`, counted as the JSON string the text becomes (jsonLength):
 * while over, the list whose shown part is longest loses items from its
 * end, down to the next longest one's length, so the long lists end up
 * about as long as each other (one item is always kept). When even that is
 * over, the text is cut at the budget with an ellipsis.
 */
export function fitLines(lines: readonly Line[], budget: number): Fitted {
  const cutting: Cutting[] = [];
  let total = 2 + Math.max(0, lines.length - 1) * cost('\n');
  for (const line of lines) {
    for (const part of line) {
      if (typeof part === 'string') {
        total += cost(part);
        continue;
      }
      const list: Cutting = { list: part, costs: part.items.map(cost), separator: cost(part.separator), count: 0, shown: 0 };
      list.count = Math.min(part.items.length, part.atMost ?? Infinity);
      list.shown = shownCost(list);
      total += list.shown;
      cutting.push(list);
    }
  }
  while (total > budget) {
    const [longest, next] = cutting.filter((c) => c.count > 1).sort((a, b) => b.shown - a.shown);
    if (longest === undefined) return { text: cutAt(render(lines, cutting), budget), cut: true };
    const floor = Math.max(next?.shown ?? 0, longest.shown - (total - budget));
    const before = longest.shown;
    do {
      longest.count -= 1;
      longest.shown = shownCost(longest);
    } while (longest.count > 1 && longest.shown > floor);
    total += longest.shown - before;
  }
  return { text: render(lines, cutting), cut: cutting.some((c) => c.count < c.list.items.length) };
}

function shownCost(c: Cutting): number {
  const hidden = c.list.items.length - c.count;
  let sum = Math.max(0, c.count - 1) * c.separator + (hidden > 0 ? cost(c.list.more(hidden)) : 0);
  for (let i = 0; i < c.count; i++) sum += c.costs[i]!;
  return sum;
}

function render(lines: readonly Line[], cutting: readonly Cutting[]): string {
  const counts = new Map(cutting.map((c) => [c.list, c.count]));
  return lines.map((line) => line.map((part) => (typeof part === 'string' ? part : listText(part, counts.get(part)!))).join('')).join('\n');
}

function listText(list: ItemList, count: number): string {
  const hidden = list.items.length - count;
  return list.items.slice(0, count).join(list.separator) + (hidden > 0 ? list.more(hidden) : '');
}

/** `text` cut short enough that it and an ellipsis, as a JSON string, measure at most `budget`. */
function cutAt(text: string, budget: number): string {
  let low = 0;
  let high = text.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (jsonLength(`${text.slice(0, mid)}…`) <= budget) low = mid;
    else high = mid - 1;
  }
  // Never end inside a surrogate pair: half a character is not text.
  const end = low > 0 && /[\uD800-\uDBFF]/.test(text[low - 1]!) ? low - 1 : low;
  return `${text.slice(0, end)}…`;
}

/** `text` shortened to at most `max` characters, with an ellipsis when it was longer (a title in a list). */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 2]!) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}
