/**
 * What a text field may hold, as Ajv formats: no control characters (NUL, ESC, DEL, C1...), which have no place
 * in a name or an address, break storage (PostgreSQL refuses NUL) and can drive an operator's terminal.
 */
export const textFormats = {
  'single-line': {
    pattern: /^[^\p{Cc}]*$/u,
    message: 'must be one line of text, without control characters',
  },
  text: {
    pattern: /^(?:[\t\n\r]|[^\p{Cc}])*$/u,
    message: 'must be text without control characters (line breaks and tabs are fine)',
  },
} as const;

export type TextFormat = keyof typeof textFormats;
