// Control characters (ESC, BEL, DEL, the C1 range with its one-byte CSI) and the invisible marks that reorder text.
const unsafe = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

const escaped = (char: string) => `\\u{${char.codePointAt(0)!.toString(16)}}`;

/**
 * Text from a request, made safe for an operator's terminal: what could clear the screen, write the clipboard,
 * fake output or reorder it is shown as `\u{1b}` and the like. Line breaks and tabs stay where `multiline`.
 */
export function printable(text: string, { multiline = false } = {}): string {
  return text.replace(unsafe, (char) => (multiline && (char === '\n' || char === '\t') ? char : escaped(char)));
}

/** JSON for a terminal: JSON.stringify escapes C0 controls but not DEL, C1 or the reordering marks; this does. */
export function printableJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    unsafe,
    (char) => `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`,
  );
}
