// The invisible marks that reorder text (bidirectional controls).
const reorderingMarks = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

// Control characters (ESC, BEL, DEL, the C1 range with its one-byte CSI) and the reordering marks.
const unsafe = new RegExp(`[\\p{Cc}${reorderingMarks}]`, 'gu');

const escaped = (char: string) => `\\u{${char.codePointAt(0)!.toString(16)}}`;

/**
 * Text from a request, made safe for an operator's terminal: what could clear the screen, write the clipboard,
 * fake output or reorder it is shown as `\u{1b}` and the like. Line breaks and tabs stay where `multiline`.
 */
export function printable(text: string, { multiline = false } = {}): string {
  return text.replace(unsafe, (char) => (multiline && (char === '\n' || char === '\t') ? char : escaped(char)));
}

// What JSON.stringify leaves raw inside strings: DEL, the C1 range and the reordering marks (it escapes C0 itself).
const unsafeInJson = new RegExp(`[\\u007f-\\u009f${reorderingMarks}]`, 'g');

/** JSON for a terminal, still valid JSON: every character `printable` hides is written as a `\u` escape. */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    unsafeInJson,
    (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );
}
