/**
 * The characters of the headings' face (fonts/inter-headings-700.woff2, written by scripts/subset-heading-font.mts):
 * printable ASCII and the typography the copy uses. A heading's character outside it is drawn by the next face in
 * line, the whole family or its metric-matched local stand-in.
 */
export const headingFontCharacters =
  Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)).join('') + '’‘“”–—£€…·é';
