/**
 * Draws the landing page's art: the slider's app screens and the illustrations of the rows, in one style (the brand
 * palette, rounded cards, the brand font). An SVG shown as an image cannot load the page's fonts, so the text is drawn
 * as Inter's own outlines, a path per line of text. Run `pnpm --filter consumer draw-art` after changing a screen;
 * the SVGs it writes are committed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as hb from 'harfbuzzjs';
import subsetFont from 'subset-font';

const require = createRequire(import.meta.url);
const inter = readFileSync(require.resolve('@fontsource-variable/inter/files/inter-latin-wght-normal.woff2'));
const slidesFolder = new URL('../src/assets/slides/', import.meta.url);
const illustrationsFolder = new URL('../src/assets/illustrations/', import.meta.url);

const color = {
  brand: '#b3124e',
  brandStrong: '#8c0d3c',
  brandSoft: '#fde7ef',
  accent: '#f6b73c',
  accentSoft: '#fdf0d5',
  ink: '#1d1726',
  muted: '#544a5e',
  line: '#e7dde3',
  canvas: '#fff8f3',
  surface: '#ffffff',
  teal: '#0b5c6b',
  tealSoft: '#e0f4f1',
  success: '#146c2e',
  successSoft: '#e3f4e8',
};

type Weight = 400 | 700;
/** Glyph outlines are taken at this many units per em and rounded to whole units (1/200 em). */
const unitsPerEm = 200;
// HarfBuzz reads TrueType, not WOFF2: the same font unpacked (its Latin glyphs, every weight still in it).
const printable = Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)).join('') + '£·’';
const face = new hb.Face(new hb.Blob(await subsetFont(inter, printable, { targetFormat: 'sfnt' })));
const fonts = new Map<Weight, hb.Font>(
  ([400, 700] as const).map((weight) => {
    const font = new hb.Font(face);
    font.setVariations([new hb.Variation('wght', weight)]);
    font.setScale(unitsPerEm, unitsPerEm);
    return [weight, font];
  }),
);

/**
 * A line of text as one path, in font units (1/200 em, y up) under one transform: its glyphs' outlines placed by
 * HarfBuzz's advances, which are whole units too. One element per line, not one per glyph: an SVG shown as an image
 * is laid out and painted on the page's main thread, and a <use> per glyph (a screen had 150) cost a phone tens of
 * milliseconds a screen (issue 60). Each glyph starts with an absolute move and goes on in relative steps, so a glyph
 * drawn twice is the same text twice, which compression takes almost for free.
 */
class Glyphs {
  /** A line of text whose baseline starts at (x, y); `anchor` middle or end measures it first. */
  text(
    value: string,
    x: number,
    y: number,
    { size = 14, weight = 400, fill = color.ink, anchor = 'start' }: TextStyle = {},
  ): string {
    const font = fonts.get(weight)!;
    const buffer = new hb.Buffer();
    buffer.addText(value);
    buffer.guessSegmentProperties();
    hb.shape(font, buffer);
    const glyphs = buffer.getGlyphInfosAndPositions();
    const scale = size / unitsPerEm;
    const width = glyphs.reduce((sum, glyph) => sum + (glyph.xAdvance ?? 0), 0) * scale;
    const start = anchor === 'middle' ? x - width / 2 : anchor === 'end' ? x - width : x;
    let pen = 0;
    const outlines: string[] = [];
    for (const glyph of glyphs) {
      const outline = placed(font.glyphToPath(glyph.codepoint), pen + (glyph.xOffset ?? 0));
      if (outline) outlines.push(outline);
      pen += glyph.xAdvance ?? 0;
    }
    if (!outlines.length) return '';
    const s = round(scale, 4);
    return `<path fill="${fill}" transform="translate(${round(start, 2)} ${round(y, 2)}) scale(${s} -${s})" d="${outlines.join('')}"/>`;
  }
}

/**
 * A glyph's outline (HarfBuzz's absolute M, L, Q, C and Z, in font units rounded to whole ones, as the outlines
 * always were) moved `x` units along the line: an absolute move to its first point, then every step relative.
 */
function placed(outline: string, x: number): string {
  let out = '';
  let current: [number, number] | undefined;
  let start: [number, number] = [0, 0];
  for (const [, command = '', numbers = ''] of outline.matchAll(/([MLQCZ])([^MLQCZ]*)/g)) {
    if (command === 'Z') {
      out += 'z';
      current = start;
      continue;
    }
    const values = (numbers.match(/-?\d+(\.\d+)?/g) ?? []).map((number) => Math.round(Number(number)));
    if ((command === 'M' || command === 'L') && values.length !== 2)
      throw new Error(`${command} with ${values.length / 2} points`);
    const points: [number, number][] = [];
    for (let index = 0; index < values.length; index += 2) points.push([values[index]!, values[index + 1]!]);
    if (!current) {
      out += `M${x + points[0]![0]} ${points[0]![1]}`;
      start = current = points[0]!;
      continue;
    }
    const from = current;
    out += `${command.toLowerCase()}${points.map(([px, py]) => `${px - from[0]} ${py - from[1]}`).join(' ')}`;
    current = points[points.length - 1]!;
    if (command === 'M') start = current;
  }
  return out.replace(/ -/g, '-');
}

interface TextStyle {
  size?: number;
  weight?: Weight;
  fill?: string;
  anchor?: 'start' | 'middle' | 'end';
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const rect = (x: number, y: number, w: number, h: number, r: number, fill: string, extra = '') =>
  `<rect x="${x}" y="${y}" width="${w}" height="${h}" rx="${r}" fill="${fill}"${extra}/>`;
const circle = (cx: number, cy: number, r: number, fill: string, extra = '') =>
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}"${extra}/>`;

/** A gift box, the brand's one object, at (x, y) and `size` wide. */
function giftBox(x: number, y: number, size: number, box = color.brand, ribbon = color.accent) {
  const s = size / 100;
  return `<g transform="translate(${x} ${y}) scale(${round(s, 3)})">${rect(8, 40, 84, 60, 8, box)}${rect(0, 24, 100, 24, 6, box, ' opacity=".85"')}${rect(44, 24, 12, 76, 0, ribbon)}<path d="M50 24c-16-24-40-20-32-4 4 8 22 6 32 4zM50 24c16-24 40-20 32-4-4 8-22 6-32 4z" fill="${ribbon}"/></g>`;
}

/** Initials in a circle: a person in a group. */
function avatar(cx: number, cy: number, r: number, initials: string, fill: string, glyphs: Glyphs) {
  return `${circle(cx, cy, r, fill, ` stroke="${color.surface}" stroke-width="3"`)}${glyphs.text(initials, cx, cy + r * 0.32, { size: r * 0.85, weight: 700, fill: color.surface, anchor: 'middle' })}`;
}

/** A five-pointed star centred on (cx, cy). */
const star = (cx: number, cy: number, r: number, fill: string) =>
  `<path d="M${Array.from({ length: 10 }, (_, index) => {
    const angle = (Math.PI / 5) * index - Math.PI / 2;
    const radius = index % 2 ? r * 0.45 : r;
    return `${round(cx + radius * Math.cos(angle))} ${round(cy + radius * Math.sin(angle))}`;
  }).join('L')}Z" fill="${fill}"/>`;

const check = (cx: number, cy: number, r: number, fill = color.success) =>
  `${circle(cx, cy, r, fill)}<path d="M${cx - r * 0.45} ${cy}l${r * 0.3} ${r * 0.32} ${r * 0.6}-${r * 0.62}" fill="none" stroke="#fff" stroke-width="${round(r * 0.28)}" stroke-linecap="round" stroke-linejoin="round"/>`;

/** One app screen in its phone: status bar, a heading, the screen's own content, one main button. */
function screen(draw: (glyphs: Glyphs) => { eyebrow: string; title: string; body: string; button: string }) {
  const glyphs = new Glyphs();
  const { eyebrow, title, body, button } = draw(glyphs);
  const parts = [
    rect(0, 0, 300, 560, 36, color.ink),
    rect(10, 10, 280, 540, 28, color.canvas),
    rect(115, 22, 70, 8, 4, color.ink, ' opacity=".85"'),
    glyphs.text('9:41', 34, 32, { size: 12, weight: 700 }),
    glyphs.text(eyebrow, 28, 74, { size: 12, weight: 700, fill: color.brand }),
    glyphs.text(title, 28, 102, { size: 22, weight: 700 }),
    body,
    rect(28, 478, 244, 48, 24, color.brand),
    glyphs.text(button, 150, 507, { size: 15, weight: 700, fill: color.surface, anchor: 'middle' }),
  ];
  return svg(300, 560, parts.join(''));
}

function svg(width: number, height: number, body: string) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>\n`;
}

const card = (x: number, y: number, w: number, h: number, extra = '') =>
  rect(x, y, w, h, 16, color.surface, ` stroke="${color.line}"${extra}`);

const slides: Record<string, string> = {
  // Pick an occasion.
  'slide-1': screen((g) => {
    const tiles = [
      ['Birthday', color.brandSoft, giftBox(0, 0, 40)],
      [
        'Anniversary',
        color.accentSoft,
        `<path d="M20 36 4 20a10 10 0 0 1 16-12 10 10 0 0 1 16 12z" fill="${color.brand}"/>`,
      ],
      [
        'Graduation',
        color.tealSoft,
        `<path d="M20 6 40 16 20 26 0 16z" fill="${color.teal}"/>${rect(8, 20, 24, 12, 4, color.teal)}`,
      ],
      [
        'New baby',
        color.successSoft,
        `${circle(20, 20, 16, color.success)}${circle(14, 17, 2.5, '#fff')}${circle(26, 17, 2.5, '#fff')}`,
      ],
    ] as const;
    const body = tiles
      .map(([label, tint, icon], index) => {
        const x = 28 + (index % 2) * 126;
        const y = 128 + Math.floor(index / 2) * 136;
        const chosen = index === 0;
        return `${rect(x, y, 118, 124, 18, chosen ? color.surface : tint, chosen ? ` stroke="${color.brand}" stroke-width="3"` : '')}<g transform="translate(${x + 39} ${y + 24})">${icon}</g>${g.text(label, x + 59, y + 96, { size: 14, weight: 700, anchor: 'middle' })}${chosen ? check(x + 100, y + 18, 10, color.brand) : ''}`;
      })
      .join('');
    return {
      eyebrow: 'New gift',
      title: 'Pick an occasion',
      body: `${body}${card(28, 408, 244, 52)}${g.text('For', 44, 439, { size: 13, fill: color.muted })}${g.text('Maya Patel', 72, 439, { size: 14, weight: 700 })}${g.text('Sat 13 Dec', 256, 439, { size: 13, fill: color.muted, anchor: 'end' })}`,
      button: 'Continue',
    };
  }),
  // A gift's page.
  'slide-2': screen((g) => ({
    eyebrow: 'Gift ideas',
    title: 'Hand-poured candle',
    body: `${rect(28, 120, 244, 180, 20, color.accentSoft)}${rect(112, 170, 76, 100, 14, color.surface)}${rect(112, 186, 76, 20, 0, color.brandSoft)}${rect(147, 150, 6, 22, 3, color.ink)}<path d="M150 128c10 12 8 22 0 24-8-2-10-12 0-24z" fill="${color.accent}"/>${circle(250, 142, 14, color.surface)}<path d="M250 150l-7-7a4.5 4.5 0 0 1 7-5 4.5 4.5 0 0 1 7 5z" fill="${color.brand}"/>${g.text('Wick & Co · Leeds', 28, 330, { size: 13, fill: color.muted })}${g.text('£24', 272, 330, { size: 20, weight: 700, anchor: 'end' })}${[0, 1, 2, 3, 4].map((index) => star(36 + index * 16, 351, 6.5, color.accent)).join('')}${g.text('4.9 · 312 reviews', 112, 356, { size: 12, fill: color.muted })}${g.text('Fig and cedar, 40 hours of calm.', 28, 392, { size: 14 })}${g.text('Gift-wrapped with a handwritten card.', 28, 414, { size: 14 })}${rect(28, 432, 110, 30, 15, color.tealSoft)}${g.text('Ships in 1 day', 83, 452, { size: 12, weight: 700, fill: color.teal, anchor: 'middle' })}`,
    button: 'Choose this gift',
  })),
  // Make it personal.
  'slide-3': screen((g) => ({
    eyebrow: 'Make it personal',
    title: 'Add your message',
    body: `${card(28, 124, 244, 168)}${g.text('To Maya,', 46, 158, { size: 16, weight: 700 })}${g.text('Happy 30th! Here is to', 46, 188, { size: 15 })}${g.text('the next adventure.', 46, 210, { size: 15 })}${g.text('Love, Sam, Lee and Jo', 46, 244, { size: 15, weight: 700, fill: color.brand })}${rect(46, 260, 2, 18, 1, color.brand)}${g.text('Card style', 28, 326, { size: 13, weight: 700, fill: color.muted })}${[color.brand, color.accent, color.teal, color.success].map((fill, index) => `${circle(48 + index * 44, 356, 16, fill, index === 0 ? ` stroke="${color.ink}" stroke-width="3"` : '')}`).join('')}${g.text('Add-ons', 28, 406, { size: 13, weight: 700, fill: color.muted })}${rect(28, 418, 104, 34, 17, color.brandSoft)}${g.text('Gift wrap', 80, 440, { size: 13, weight: 700, fill: color.brandStrong, anchor: 'middle' })}${rect(140, 418, 120, 34, 17, color.surface, ` stroke="${color.line}"`)}${g.text('Balloon +£6', 200, 440, { size: 13, weight: 700, anchor: 'middle' })}`,
    button: 'Save message',
  })),
  // Give together.
  'slide-4': screen((g) => ({
    eyebrow: 'Group gift',
    title: 'Maya’s 30th',
    body: `${['SK', 'LJ', 'JO', 'AR', 'TM'].map((initials, index) => avatar(48 + index * 34, 146, 20, initials, [color.brand, color.teal, color.accent, color.success, color.brandStrong][index]!, g)).join('')}${g.text('5 friends', 216, 151, { size: 13, fill: color.muted })}${card(28, 186, 244, 96)}${g.text('£96 of £120', 46, 220, { size: 20, weight: 700 })}${g.text('2 days left to chip in', 46, 244, { size: 13, fill: color.muted })}${rect(46, 258, 208, 10, 5, color.brandSoft)}${rect(46, 258, 166, 10, 5, color.brand)}${(
      [
        ['Sam chipped in', '£30'],
        ['Lee chipped in', '£30'],
        ['Jo chipped in', '£36'],
      ] as const
    )
      .map(
        ([who, amount], index) =>
          `${check(40, 318 + index * 44, 10)}${g.text(who, 60, 323 + index * 44, { size: 14 })}${g.text(amount, 272, 323 + index * 44, { size: 14, weight: 700, anchor: 'end' })}`,
      )
      .join('')}`,
    button: 'Chip in',
  })),
  // When and where.
  'slide-5': screen((g) => {
    const days = Array.from({ length: 14 }, (_, index) => index + 8);
    const calendar = days
      .map((day, index) => {
        const x = 46 + (index % 7) * 31;
        const y = 204 + Math.floor(index / 7) * 38;
        const chosen = day === 13;
        return `${chosen ? circle(x + 10, y - 5, 15, color.brand) : ''}${g.text(String(day), x + 10, y, { size: 13, weight: chosen ? 700 : 400, fill: chosen ? color.surface : color.ink, anchor: 'middle' })}`;
      })
      .join('');
    return {
      eyebrow: 'Delivery',
      title: 'When should it arrive?',
      body: `${card(28, 122, 244, 160)}${g.text('December', 46, 152, { size: 15, weight: 700 })}${['M', 'T', 'W', 'T', 'F', 'S', 'S'].map((day, index) => g.text(day, 56 + index * 31, 174 - 4, { size: 11, weight: 700, fill: color.muted, anchor: 'middle' })).join('')}${calendar}${card(28, 298, 244, 84)}${circle(54, 340, 14, color.brandSoft)}<path d="M54 332a6 6 0 0 1 6 6c0 5-6 10-6 10s-6-5-6-10a6 6 0 0 1 6-6z" fill="${color.brand}"/>${g.text('Maya Patel', 78, 334, { size: 14, weight: 700 })}${g.text('14 Elm Road, Leeds', 78, 356, { size: 13, fill: color.muted })}${g.text('Sat 13 Dec, by 6 pm', 28, 416, { size: 15, weight: 700 })}${g.text('Free delivery', 28, 440, { size: 13, fill: color.success })}`,
      button: 'Send gift',
    };
  }),
  // Delivery tracking.
  'slide-6': screen((g) => {
    const steps = [
      ['Ordered', 'Thu 11 Dec, 9:12'],
      ['Packed by Wick & Co', 'Fri 12 Dec, 16:40'],
      ['Out for delivery', 'Today, arriving 2-4 pm'],
      ['Delivered', ''],
    ] as const;
    const timeline = steps
      .map(([label, when], index) => {
        const y = 268 + index * 50;
        const done = index < 2;
        const now = index === 2;
        const dot = done
          ? check(44, y, 10)
          : now
            ? `${circle(44, y, 13, color.brandSoft)}${circle(44, y, 7, color.brand)}`
            : circle(44, y, 8, color.surface, ` stroke="${color.line}" stroke-width="3"`);
        const line = index < steps.length - 1 ? rect(43, y + 12, 2, 26, 1, done ? color.success : color.line) : '';
        return `${line}${dot}${g.text(label, 66, y + 1, { size: 14, weight: 700, fill: index === 3 ? color.muted : color.ink })}${when ? g.text(when, 66, y + 19, { size: 12, fill: color.muted }) : ''}`;
      })
      .join('');
    return {
      eyebrow: 'Order GW-2814',
      title: 'On its way',
      body: `${rect(28, 120, 244, 110, 18, color.tealSoft)}<path d="M44 200c30-40 60 10 90-20s70-30 110-10" fill="none" stroke="${color.teal}" stroke-width="4" stroke-dasharray="2 9" stroke-linecap="round"/>${circle(244, 170, 12, color.brand)}${circle(244, 170, 5, color.surface)}${rect(114, 164, 40, 26, 6, color.accent)}${circle(124, 192, 5, color.ink)}${circle(146, 192, 5, color.ink)}${timeline}`,
      button: 'Share tracking',
    };
  }),
  // Delivered, and thanked.
  'slide-7': screen((g) => ({
    eyebrow: 'Delivered',
    title: 'Maya loved it',
    body: `${circle(150, 188, 58, color.successSoft)}${check(150, 188, 34)}${[
      [70, 140, color.accent],
      [232, 150, color.brand],
      [90, 236, color.teal],
      [222, 232, color.accent],
    ]
      .map(([x, y, fill]) =>
        rect(x as number, y as number, 10, 10, 2, fill as string, ` transform="rotate(30 ${x} ${y})"`),
      )
      .join(
        '',
      )}${g.text('Delivered Sat 13 Dec, 2:37 pm', 150, 282, { size: 13, fill: color.muted, anchor: 'middle' })}${avatar(50, 326, 18, 'MP', color.brand, g)}${rect(78, 306, 194, 92, 18, color.surface, ` stroke="${color.line}"`)}${g.text('Thank you all, I love', 94, 336, { size: 14 })}${g.text('it! Best birthday yet.', 94, 358, { size: 14 })}${g.text('Maya', 94, 384, { size: 12, weight: 700, fill: color.muted })}${g.text('Say thanks back, or plan the next one.', 150, 440, { size: 12, fill: color.muted, anchor: 'middle' })}`,
    button: 'Plan the next gift',
  })),
};

/** The rows' illustrations: a scene each, on a tinted card with the same soft shapes behind. */
function scene(tint: string, shade: string, body: (glyphs: Glyphs) => string) {
  const glyphs = new Glyphs();
  const content = body(glyphs);
  return svg(
    560,
    420,
    `${rect(0, 0, 560, 420, 32, tint)}${circle(460, 80, 120, shade, ' opacity=".12"')}${circle(90, 360, 90, shade, ' opacity=".1"')}${content}`,
  );
}

const illustrations: Record<string, string> = {
  // A gift opened among friends: confetti, a card, three people.
  'celebrate-together': scene(color.tealSoft, color.teal, (g) => {
    const confetti = [
      [150, 90, color.accent],
      [400, 70, color.brand],
      [120, 200, color.brand],
      [440, 190, color.accent],
      [330, 60, color.teal],
      [210, 60, color.teal],
    ]
      .map(([x, y, fill]) =>
        rect(x as number, y as number, 14, 14, 3, fill as string, ` transform="rotate(25 ${x} ${y})"`),
      )
      .join('');
    return `${confetti}${giftBox(210, 120, 140)}${rect(330, 250, 150, 92, 16, color.surface, ` stroke="${color.line}"`)}${g.text('Happy 30th,', 350, 286, { size: 18, weight: 700 })}${g.text('Maya!', 350, 314, { size: 18, weight: 700, fill: color.brand })}${avatar(150, 300, 30, 'SK', color.teal, g)}${avatar(200, 330, 30, 'LJ', color.brand, g)}${avatar(110, 340, 30, 'JO', color.accent, g)}`;
  }),
  // The people you give with: a group card with its members.
  'trusted-groups': scene(color.brandSoft, color.brand, (g) => {
    const members = [
      ['Sam Kaur', 'SK', color.teal],
      ['Lee Jones', 'LJ', color.brand],
      ['Jo Okafor', 'JO', color.accent],
    ] as const;
    return `${rect(130, 70, 300, 280, 24, color.surface, ` stroke="${color.line}"`)}${g.text('Book club', 160, 116, { size: 24, weight: 700 })}${g.text('3 people · 4 gifts sent', 160, 142, { size: 15, fill: color.muted })}${members
      .map(
        ([name, initials, fill], index) =>
          `${avatar(184, 190 + index * 54, 22, initials, fill, g)}${g.text(name, 220, 196 + index * 54, { size: 16, weight: 700 })}`,
      )
      .join(
        '',
      )}${circle(420, 80, 26, color.brand)}<path d="M420 68v24M408 80h24" stroke="#fff" stroke-width="4" stroke-linecap="round"/>`;
  }),
  // The dates that matter: a month with its occasions marked.
  'special-occasions': scene('#efe9fb', '#5b3aa6', (g) => {
    const marked = new Map([
      [5, color.brand],
      [13, color.accent],
      [24, color.teal],
    ]);
    const days = Array.from({ length: 28 }, (_, index) => {
      const day = index + 1;
      const x = 176 + (index % 7) * 34;
      const y = 168 + Math.floor(index / 7) * 36;
      const fill = marked.get(day);
      return `${fill ? circle(x, y - 5, 14, fill) : ''}${g.text(String(day), x, y, { size: 13, weight: fill ? 700 : 400, fill: fill ? color.surface : color.ink, anchor: 'middle' })}`;
    }).join('');
    return `${rect(140, 60, 280, 300, 24, color.surface, ` stroke="${color.line}"`)}${rect(140, 60, 280, 56, 24, '#5b3aa6')}${rect(140, 92, 280, 24, 0, '#5b3aa6')}${g.text('February', 164, 96, { size: 20, weight: 700, fill: color.surface })}${days}${rect(164, 318, 10, 10, 5, color.brand)}${g.text('Mum’s birthday', 182, 327, { size: 12, weight: 700 })}${rect(290, 318, 10, 10, 5, color.accent)}${g.text('Anniversary', 308, 327, { size: 12, weight: 700 })}`;
  }),
};

for (const [name, drawing] of Object.entries(slides)) writeFileSync(new URL(`${name}.svg`, slidesFolder), drawing);
for (const [name, drawing] of Object.entries(illustrations))
  writeFileSync(new URL(`${name}.svg`, illustrationsFolder), drawing);
console.log(
  `Drew ${Object.keys(slides).length} app screens and ${Object.keys(illustrations).length} illustrations: ${[...Object.values(slides), ...Object.values(illustrations)].map((drawing) => `${(drawing.length / 1024).toFixed(1)} KiB`).join(', ')}`,
);
